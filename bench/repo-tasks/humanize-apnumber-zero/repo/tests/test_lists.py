from __future__ import annotations

import unittest


import humanize


class TestLists(unittest.TestCase):
    def test_natural_list(self):
        for test_args, expected in [
            ([["1", "2", "3"]], "1, 2 and 3"),
            ([["one", "two", "three"]], "one, two and three"),
            ([["one", "two"]], "one and two"),
            ([["one"]], "one"),
            ([[]], ""),
            ([[""]], ""),
            ([[1, 2, 3]], "1, 2 and 3"),
            ([[1, "two"]], "1 and two"),
        ]:
            with self.subTest(test_args=test_args):
                self.assertEqual(humanize.natural_list(*test_args), expected)
