import itertools
import unittest

import toolz
import toolz.curried
from toolz.itertoolz import peekn


class TestHiddenPeekn(unittest.TestCase):
    def test_peekn(self):
        alist = ("Alice", "Bob", "Carol")
        elements, blist = peekn(2, alist)
        assert elements == alist[:2]
        assert tuple(blist) == alist

        elements, blist = peekn(len(alist) * 4, alist)
        assert elements == alist
        assert tuple(blist) == alist

    def test_returns_tuple(self):
        elements, rest = peekn(3, iter([1, 2, 3, 4, 5]))
        self.assertEqual(elements, (1, 2, 3))
        self.assertIsInstance(elements, tuple)
        self.assertEqual(list(rest), [1, 2, 3, 4, 5])

    def test_zero_and_empty(self):
        elements, rest = peekn(0, [1, 2])
        self.assertEqual(elements, ())
        self.assertEqual(list(rest), [1, 2])
        elements, rest = peekn(2, [])
        self.assertEqual(elements, ())
        self.assertEqual(list(rest), [])

    def test_lazy_on_infinite_iterator(self):
        elements, rest = peekn(3, itertools.count())
        self.assertEqual(elements, (0, 1, 2))
        self.assertEqual(list(itertools.islice(rest, 5)), [0, 1, 2, 3, 4])

    def test_exported(self):
        self.assertIs(toolz.peekn, peekn)
        self.assertIn("peekn", toolz.itertoolz.__all__)
        elements, rest = toolz.curried.peekn(2)("abcd")
        self.assertEqual(elements, ("a", "b"))
        self.assertEqual("".join(rest), "abcd")


if __name__ == "__main__":
    unittest.main()
