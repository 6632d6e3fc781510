import unittest

from cachetools import TTLCache


class Timer:
    def __init__(self):
        self.time = 0

    def __call__(self):
        return self.time

    def tick(self):
        self.time += 1


class HiddenTTLLRUTest(unittest.TestCase):
    def test_access_makes_item_most_recently_used(self):
        cache = TTLCache(maxsize=3, ttl=10, timer=Timer())
        cache[1] = 1
        cache[2] = 2
        cache[3] = 3
        self.assertEqual(1, cache[1])
        cache[4] = 4
        self.assertIn(1, cache)
        self.assertNotIn(2, cache)
        self.assertEqual({1, 3, 4}, set(cache))

    def test_popitem_removes_least_recently_used(self):
        cache = TTLCache(maxsize=3, ttl=10, timer=Timer())
        cache.update({"a": 1, "b": 2, "c": 3})
        cache.get("a")
        cache.get("b")
        self.assertEqual(("c", 3), cache.popitem())
        self.assertEqual(("a", 1), cache.popitem())
        self.assertEqual(("b", 2), cache.popitem())
        with self.assertRaises(KeyError):
            cache.popitem()

    def test_expired_items_go_first(self):
        cache = TTLCache(maxsize=2, ttl=2, timer=Timer())
        cache[1] = 1
        cache.timer.tick()
        cache[2] = 2
        self.assertEqual(1, cache[1])
        cache.timer.tick()
        # 1 has expired although it was used more recently than 2
        self.assertNotIn(1, cache)
        cache[3] = 3
        self.assertEqual({2, 3}, set(cache))


if __name__ == "__main__":
    unittest.main()
