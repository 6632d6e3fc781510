import unittest
from operator import add, mul

from toolz import reduceby
from toolz.curried import reduceby as curried_reduceby


def iseven(x):
    return x % 2 == 0


class TestHiddenReduceby(unittest.TestCase):
    def test_without_init_first_item_counts_once(self):
        self.assertEqual(reduceby(iseven, add, [1, 2, 3, 4, 5]), {True: 6, False: 9})
        self.assertEqual(reduceby(iseven, mul, [1, 2, 3, 4, 5]), {True: 8, False: 15})

    def test_single_item_groups(self):
        self.assertEqual(reduceby(len, add, ["a", "bb", "ccc"]), {1: "a", 2: "bb", 3: "ccc"})

    def test_max_by_key(self):
        words = ["apple", "avocado", "banana", "blueberry", "cherry"]
        longest = reduceby(lambda w: w[0], lambda a, b: a if len(a) >= len(b) else b, words)
        self.assertEqual(longest, {"a": "avocado", "b": "blueberry", "c": "cherry"})

    def test_with_init_unchanged(self):
        self.assertEqual(reduceby(iseven, add, [1, 2, 3, 4], 0), {True: 6, False: 4})
        self.assertEqual(reduceby(iseven, lambda acc, x: acc + [x], [1, 2, 3], list),
                         {True: [2], False: [1, 3]})

    def test_curried(self):
        self.assertEqual(curried_reduceby(iseven, add)([1, 2, 3, 4]), {True: 6, False: 4})

    def test_empty(self):
        self.assertEqual(reduceby(iseven, add, []), {})


if __name__ == "__main__":
    unittest.main()
