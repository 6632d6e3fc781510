import unittest
from toolz.utils import raises


class TestUtils(unittest.TestCase):
    def test_raises(self):
        assert raises(ZeroDivisionError, lambda: 1 / 0)
        assert not raises(ZeroDivisionError, lambda: 1)


if __name__ == '__main__':
    unittest.main()
