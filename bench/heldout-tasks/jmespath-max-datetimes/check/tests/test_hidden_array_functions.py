"""Hidden checks of functions taking arrays of numbers or of strings."""

from datetime import datetime, timedelta
import json

from tests import unittest

import jmespath
from jmespath import exceptions


class TestHiddenArrayFunctions(unittest.TestCase):
    def test_can_max_datetimes(self):
        data = [datetime.now(), datetime.now() + timedelta(seconds=1)]
        result = jmespath.search('max([*].to_string(@))', data)
        self.assertEqual(json.loads(result), str(data[-1]))
        result = jmespath.search('min([*].to_string(@))', data)
        self.assertEqual(json.loads(result), str(data[0]))

    def test_numbers_and_strings(self):
        data = {'n': [3, 1.5, 2], 's': ['b', 'c', 'a'], 'e': []}
        self.assertEqual(jmespath.search('max(n)', data), 3)
        self.assertEqual(jmespath.search('min(n)', data), 1.5)
        self.assertEqual(jmespath.search('sort(n)', data), [1.5, 2, 3])
        self.assertEqual(jmespath.search('max(s)', data), 'c')
        self.assertEqual(jmespath.search('min(s)', data), 'a')
        self.assertEqual(jmespath.search('sort(s)', data), ['a', 'b', 'c'])
        self.assertIsNone(jmespath.search('max(e)', data))
        self.assertEqual(jmespath.search('sort(e)', data), [])
        self.assertEqual(jmespath.search('sort(keys(@))', data), ['e', 'n', 's'])

    def test_mixed_arrays_are_rejected(self):
        for expression in ('max(@)', 'min(@)', 'sort(@)'):
            for data in ([1, 'a'], ['a', 1], [True, False], [[1], [2]], [{'a': 1}]):
                with self.subTest(expression=expression, data=data):
                    with self.assertRaises(exceptions.JMESPathTypeError) as e:
                        jmespath.search(expression, data)
                    self.assertIn('invalid type for value', str(e.exception))

    def test_error_names_the_offending_element(self):
        with self.assertRaises(exceptions.JMESPathTypeError) as e:
            jmespath.search('max(@)', [1, 'a'])
        self.assertIn('invalid type for value: a,', str(e.exception))
        with self.assertRaises(exceptions.JMESPathTypeError) as e:
            jmespath.search('sort(@)', [True])
        self.assertIn('invalid type for value: True,', str(e.exception))


if __name__ == '__main__':
    unittest.main()
