import unittest
import copy
import pickle

from boltons.typeutils import make_sentinel

NOT_SET = make_sentinel('not_set', var_name='NOT_SET')


class TestTypeUtils(unittest.TestCase):
    def test_sentinel_falsiness(self):
        self.assertFalse(NOT_SET)

    def test_sentinel_pickle(self):
        self.assertTrue(pickle.dumps(NOT_SET))

    def test_sentinel_copy(self):
        test = make_sentinel('test')
        self.assertIs(test, copy.copy(test))
        self.assertIs(test, copy.deepcopy(test))
