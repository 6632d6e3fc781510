"""Hidden checks of removing tasks from the priority queues."""

import unittest

from boltons.queueutils import HeapPriorityQueue, SortedPriorityQueue, PriorityQueue


class HiddenQueueRemoveTests(unittest.TestCase):
    queue_types = (HeapPriorityQueue, SortedPriorityQueue, PriorityQueue)

    def test_remove_skips_the_task(self):
        for queue_type in self.queue_types:
            with self.subTest(queue_type=queue_type.__name__):
                pq = queue_type()
                pq.add('low', 1)
                pq.add('high', 9)
                pq.add('mid', 5)
                pq.remove('high')
                self.assertEqual(len(pq), 2)
                self.assertEqual(pq.peek(), 'mid')
                self.assertEqual(pq.pop(), 'mid')
                self.assertEqual(pq.pop(), 'low')
                self.assertEqual(len(pq), 0)
                self.assertEqual(pq.pop(default=None), None)

    def test_remove_absent_task_raises_key_error(self):
        for queue_type in self.queue_types:
            with self.subTest(queue_type=queue_type.__name__):
                pq = queue_type()
                pq.add('a')
                with self.assertRaises(KeyError):
                    pq.remove('b')
                pq.remove('a')
                with self.assertRaises(KeyError):
                    pq.remove('a')
                self.assertEqual(len(pq), 0)

    def test_readding_changes_priority(self):
        for queue_type in self.queue_types:
            with self.subTest(queue_type=queue_type.__name__):
                pq = queue_type()
                pq.add('a', 1)
                pq.add('b', 2)
                pq.add('a', 3)
                self.assertEqual(len(pq), 2)
                self.assertEqual([pq.pop(), pq.pop()], ['a', 'b'])


if __name__ == "__main__":
    unittest.main()
