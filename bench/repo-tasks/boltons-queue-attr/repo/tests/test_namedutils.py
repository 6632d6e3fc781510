import unittest
from pickle import loads, dumps

from boltons.namedutils import namedlist, namedtuple

Point = namedtuple('Point', 'x, y', rename=True)
MutablePoint = namedlist('MutablePoint', 'x, y', rename=True)


class TestNamedUtils(unittest.TestCase):
    def test_namedlist(self):
        p = MutablePoint(x=10, y=20)

        self.assertEqual(p, [10, 20])
        p[0] = 11
        self.assertEqual(p, [11, 20])
        p.x = 12
        self.assertEqual(p, [12, 20])

    def test_namedlist_pickle(self):
        p = MutablePoint(x=10, y=20)
        self.assertEqual(p, loads(dumps(p)))

    def test_namedtuple_pickle(self):
        p = Point(x=10, y=20)
        self.assertEqual(p, loads(dumps(p)))
