use super::*;
use pretty_assertions::assert_eq;

/// A repository in a temporary directory, and its file list.
fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let names = files.iter().map(|(p, _)| p.to_string()).collect();
    (dir, names)
}

fn names(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

const TOKENS: &str = r#"import hmac


class Tokens:
    """Issues and checks the tokens of a session."""

    def __init__(self, secret):
        self.secret = secret

    def issue(self, user):
        """A new token for `user`, signed with the current key."""
        return self._mac(user, self.secret)

    def _mac(self, payload, secret):
        # The digest over the payload.
        return hmac.new(secret, payload).hexdigest()


def rotate(keys):
    """Moves to the next key of the ring."""
    return keys[1:] + keys[:1]
"#;

const STORE: &str = r#"class Store:
    """Keeps rows on disk."""

    def save(self, row):
        self.rows.append(row)

    def load(self, key):
        return self.rows[key]
"#;

#[test]
fn a_symptom_in_words_finds_the_function_by_its_docstring() {
    let (dir, files) = repo(&[
        ("auth/tokens.py", TOKENS),
        ("auth/store.py", STORE),
        (
            "tests/test_tokens.py",
            "def test_issue():\n    assert Tokens(b'k').issue('u')\n",
        ),
    ]);
    let hits = rank(
        "New tokens are signed with the wrong key after a rotation.",
        dir.path(),
        &files,
    );
    assert_eq!(names(&hits)[..2], ["Tokens.issue", "rotate"]);
    let issue = &hits[0];
    assert_eq!(
        (issue.path.as_str(), issue.line, issue.end_line, issue.test),
        ("auth/tokens.py", 10, 12, false)
    );
}

#[test]
fn a_feature_request_finds_the_class_and_the_option_it_names() {
    let cache = r#"class TTLCache:
    """A cache whose items expire after a time to live."""

    def __init__(self, maxsize, ttl, timer=None):
        self.ttl = ttl

    def expire(self, time=None):
        """Removes the expired items."""
        for key in list(self):
            del self[key]


class LRUCache:
    def popitem(self):
        return self.pop()


def cached(cache, key=None, lock=None):
    """Decorator to wrap a function with a memoizing callable."""
    return cache
"#;
    let (dir, files) = repo(&[("cachetools/__init__.py", cache), ("store.py", STORE)]);
    let hits = rank(
        "I'd like expire() on TTLCache to return the expired (key, value) pairs.",
        dir.path(),
        &files,
    );
    assert_eq!(names(&hits)[..2], ["TTLCache.expire", "TTLCache"]);
    let hits = rank(
        "Add a `timer` option to TTLCache so that tests can pass their own clock.",
        dir.path(),
        &files,
    );
    assert_eq!(names(&hits)[..2], ["TTLCache.__init__", "TTLCache"]);
}

#[test]
fn stop_words_find_nothing_and_tests_are_marked() {
    let (dir, files) = repo(&[
        ("auth/tokens.py", TOKENS),
        (
            "tests/test_tokens.py",
            "def test_issue():\n    assert Tokens(b'k').issue('u')\n",
        ),
    ]);
    assert_eq!(
        rank(
            "Fix the bug: it should not do that when they are there.",
            dir.path(),
            &files
        ),
        []
    );
    let hits = rank("test_issue fails", dir.path(), &files);
    assert_eq!(hits[0].name, "test_issue");
    assert!(hits[0].test);
    assert!(hits.iter().any(|h| h.name == "Tokens.issue" && !h.test));
}
