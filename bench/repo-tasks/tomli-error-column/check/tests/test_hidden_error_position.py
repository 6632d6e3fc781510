import unittest

from . import tomllib


class TestHiddenErrorPosition(unittest.TestCase):
    def error(self, doc):
        with self.assertRaises(tomllib.TOMLDecodeError) as ctx:
            tomllib.loads(doc)
        return ctx.exception

    def test_first_line(self):
        exc = self.error("x = @")
        self.assertEqual((exc.lineno, exc.colno), (1, 5))
        self.assertIn("line 1, column 5", str(exc))

    def test_later_lines(self):
        exc = self.error("a = 1\nb = 2\nc = @\n")
        self.assertEqual((exc.lineno, exc.colno), (3, 5))
        self.assertEqual(exc.pos, 16)
        self.assertEqual(str(exc), "Invalid value (at line 3, column 5)")

    def test_first_column_of_later_line(self):
        exc = self.error("a = 1\n\n@")
        self.assertEqual((exc.lineno, exc.colno), (3, 1))

    def test_manual_error(self):
        doc = "one\ntwo\nthree"
        exc = tomllib.TOMLDecodeError("msg", doc, 9)
        self.assertEqual((exc.lineno, exc.colno), (3, 2))
        exc = tomllib.TOMLDecodeError("msg", doc, 4)
        self.assertEqual((exc.lineno, exc.colno), (2, 1))
        exc = tomllib.TOMLDecodeError("msg", doc, 2)
        self.assertEqual((exc.lineno, exc.colno), (1, 3))


if __name__ == "__main__":
    unittest.main()
