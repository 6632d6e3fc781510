"""Hidden checks of the iterable_as_array encoder option."""

import collections
import unittest
from io import StringIO

import simplejson as json


def iter_dumps(obj, **kw):
    return ''.join(json.JSONEncoder(**kw).iterencode(obj))


def sio_dump(obj, **kw):
    sio = StringIO()
    json.dump(obj, sio, **kw)
    return sio.getvalue()


class Squares(object):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return (i * i for i in range(self.n))


class TestHiddenIterable(unittest.TestCase):
    def test_iterable(self):
        for l in ([], [1], [1, 2], [1, 2, 3]):
            for opts in [{}, {'indent': 2}]:
                for dumps in (json.dumps, iter_dumps, sio_dump):
                    with self.subTest(l=l, opts=opts, dumps=dumps.__name__):
                        expect = dumps(l, **opts)
                        default_expect = dumps(sum(l), **opts)
                        # Default is False
                        self.assertRaises(TypeError, dumps, iter(l), **opts)
                        self.assertRaises(TypeError, dumps, iter(l), iterable_as_array=False, **opts)
                        self.assertEqual(expect, dumps(iter(l), iterable_as_array=True, **opts))
                        # Ensure that the "default" gets called
                        self.assertEqual(default_expect, dumps(iter(l), default=sum, **opts))
                        self.assertEqual(default_expect, dumps(iter(l), iterable_as_array=False, default=sum, **opts))
                        # Ensure that the "default" does not get called
                        self.assertEqual(
                            expect,
                            dumps(iter(l), iterable_as_array=True, default=sum, **opts))

    def test_nested_iterables(self):
        obj = {'a': iter([1, 2]), 'b': [Squares(3), (x for x in 'xy')], 'c': set()}
        self.assertEqual(
            json.dumps(obj, iterable_as_array=True, sort_keys=True),
            '{"a": [1, 2], "b": [[0, 1, 4], ["x", "y"]], "c": []}')

    def test_empty_iterator_with_indent(self):
        self.assertEqual(json.dumps(iter([]), iterable_as_array=True, indent=2), '[]')
        self.assertEqual(json.dumps({'k': iter([])}, iterable_as_array=True, indent=2),
                         '{\n  "k": []\n}')
        self.assertEqual(json.dumps([iter([1])], iterable_as_array=True, indent=2),
                         '[\n  [\n    1\n  ]\n]')

    def test_other_types_unchanged(self):
        Point = collections.namedtuple('Point', 'x y')
        obj = [Point(1, 2), (3, 4), 'abc', {'d': None}]
        self.assertEqual(json.dumps(obj, iterable_as_array=True),
                         '[{"x": 1, "y": 2}, [3, 4], "abc", {"d": null}]')
        self.assertEqual(json.dumps(obj, iterable_as_array=True, namedtuple_as_object=False),
                         '[[1, 2], [3, 4], "abc", {"d": null}]')

    def test_not_iterable_still_uses_default(self):
        obj = [iter([1]), object()]
        self.assertEqual(json.dumps(obj, iterable_as_array=True, default=lambda o: 'obj'),
                         '[[1], "obj"]')
        self.assertRaises(TypeError, json.dumps, [object()], iterable_as_array=True)

    def test_encoder_attribute(self):
        self.assertFalse(json.JSONEncoder().iterable_as_array)
        encoder = json.JSONEncoder(iterable_as_array=True)
        self.assertTrue(encoder.iterable_as_array)
        self.assertEqual(encoder.encode(range(3)), '[0, 1, 2]')


if __name__ == '__main__':
    unittest.main()
