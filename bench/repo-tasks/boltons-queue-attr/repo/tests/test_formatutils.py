import unittest
import re
from collections import namedtuple

from boltons.formatutils import (get_format_args,
                                 split_format_str,
                                 tokenize_format_str,
                                 infer_positional_format_args,
                                 DeferredValue as DV)


PFAT = namedtuple("PositionalFormatArgTest", "fstr arg_vals res")

_PFATS = [PFAT('{} {} {}', ('hi', 'hello', 'bye'), "hi hello bye"),
          PFAT('{:d} {}', (1, 2), "1 2"),
          PFAT('{!s} {!r}', ('str', 'repr'), "str 'repr'"),
          PFAT('{[hi]}, {.__name__!r}', ({'hi': 'hi'}, re), "hi, 're'"),
          PFAT('{{joek}} ({} {})', ('so', 'funny'), "{joek} (so funny)")]


_TEST_TMPLS = ["example 1: {hello}",
               "example 2: {hello:*10}",
               "example 3: {hello:*{width}}",
               "example 4: {hello!r:{fchar}{width}}, {width}, yes",
               "example 5: {0}, {1:d}, {2:f}, {1}",
               "example 6: {}, {}, {}, {1}"]


class TestFormatUtils(unittest.TestCase):
    def test_pos_infer(self):
        for i, (tmpl, args, res) in enumerate(_PFATS):
            converted = infer_positional_format_args(tmpl)
            self.assertEqual(converted.format(*args), res)

    def test_get_fstr_args(self):
        results = []
        for t in _TEST_TMPLS:
            inferred_t = infer_positional_format_args(t)
            res = get_format_args(inferred_t)
            self.assertTrue(res)

    def test_split_fstr(self):
        results = []
        for t in _TEST_TMPLS:
            res = split_format_str(t)
            results.append(res)
            self.assertTrue(res)

    def test_tokenize_format_str(self):
        results = []
        for t in _TEST_TMPLS:
            res = tokenize_format_str(t)
            results.append(res)
            self.assertTrue(res)

    def test_deferredvalue(self):
        def myfunc():
            myfunc.called += 1
            return 123

        myfunc.called = 0

        dv = DV(myfunc)
        self.assertEqual(str(dv), '123')
        self.assertEqual(myfunc.called, 1)
        self.assertEqual(str(dv), '123')
        self.assertEqual(myfunc.called, 1)
        dv.cache_value = False
        self.assertEqual(str(dv), '123')
        self.assertEqual(myfunc.called, 2)
        self.assertEqual(str(dv), '123')
        self.assertEqual(myfunc.called, 3)
