"""Hidden checks of Bits.as_bytes() and Bits.from_bytes()."""

import unittest

from boltons.mathutils import Bits


class HiddenBitsBytesTests(unittest.TestCase):
    def test_as_bytes(self):
        self.assertEqual(Bits('10101010').as_bytes(), b'\xaa')
        self.assertEqual(Bits('1111').as_bytes(), b'\x0f')
        self.assertEqual(Bits('0000000100000010').as_bytes(), b'\x01\x02')
        self.assertIsInstance(Bits(5).as_bytes(), bytes)

    def test_from_bytes(self):
        self.assertEqual(Bits.from_bytes(b'\xaa'), Bits('10101010'))
        self.assertEqual(Bits.from_bytes(b'\x01\x02'), Bits('0000000100000010'))
        self.assertEqual(Bits.from_bytes(b'\x00'), Bits('00000000'))
        self.assertIsInstance(Bits.from_bytes(b'\x10'), Bits)

    def test_roundtrip(self):
        for bits in ('10101010', '0000111100001111', '11111111', '1000000000000001'):
            with self.subTest(bits=bits):
                b = Bits(bits)
                self.assertEqual(Bits.from_bytes(b.as_bytes()), b)
        for raw in (b'\x00\xff', b'hello', b'\x80'):
            with self.subTest(raw=raw):
                self.assertEqual(Bits.from_bytes(raw).as_bytes(), raw)

    def test_from_bytes_is_a_classmethod(self):
        class MyBits(Bits):
            __slots__ = ()

        self.assertIs(type(MyBits.from_bytes(b'\x01')), MyBits)


if __name__ == "__main__":
    unittest.main()
