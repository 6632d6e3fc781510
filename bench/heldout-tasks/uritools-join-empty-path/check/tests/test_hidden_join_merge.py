"""Hidden checks of urijoin with a base whose path is empty (RFC 3986 5.2.3)."""

import unittest

from uritools import urijoin, urisplit


class HiddenJoinMergeTests(unittest.TestCase):
    def check(self, base, ref, expected):
        self.assertEqual(urijoin(base, ref), expected)
        self.assertEqual(urijoin(base.encode(), ref.encode()), expected.encode())
        self.assertEqual(urijoin(base.encode(), ref), expected)
        self.assertEqual(urijoin(base, ref.encode()), expected)

    def test_authority_and_empty_path(self):
        self.check("http://example.com", "index.html", "http://example.com/index.html")
        self.check("http://example.com", "a/b?x=1#f", "http://example.com/a/b?x=1#f")
        self.check("http://example.com?q", "g", "http://example.com/g")
        self.check("https://user@host:8080", "./x", "https://user@host:8080/x")
        self.check("http://a", "../g", "http://a/g")
        self.check("http://a", "..", "http://a/")
        self.check("foo://", "bar", "foo:///bar")

    def test_transform(self):
        result = urisplit("http://example.com").transform("index.html")
        self.assertEqual(result.path, "/index.html")
        self.assertEqual(result.authority, "example.com")

    def test_base_with_path_unchanged(self):
        self.check("http://example.com/", "index.html", "http://example.com/index.html")
        self.check("http://example.com/a/b", "c", "http://example.com/a/c")
        self.check("http://example.com/a/b", "", "http://example.com/a/b")
        self.check("urn:a", "b", "urn:b")
        self.check("a/b", "c", "a/c")
        self.check("http://example.com", "/x", "http://example.com/x")
        self.check("http://example.com", "?y", "http://example.com?y")
        self.check("http://example.com", "", "http://example.com")


if __name__ == "__main__":
    unittest.main()
