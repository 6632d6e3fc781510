from unittest import TestCase

import mistune


class TestHiddenFences(TestCase):
    def render(self, text):
        return mistune.create_markdown(escape=False)(text)

    def test_shorter_backtick_fence_is_content(self):
        text = "````\nsome\n```\nmore\n````\n"
        self.assertEqual(self.render(text), "<pre><code>some\n```\nmore\n</code></pre>\n")

    def test_shorter_tilde_fence_is_content(self):
        text = "~~~~~ python\nx = 1\n~~~\ny = 2\n~~~~~\nafter\n"
        self.assertEqual(
            self.render(text),
            '<pre><code class="language-python">x = 1\n~~~\ny = 2\n</code></pre>\n<p>after</p>\n',
        )

    def test_longer_closing_fence_closes(self):
        text = "```\ncode\n`````\ntext\n"
        self.assertEqual(self.render(text), "<pre><code>code\n</code></pre>\n<p>text</p>\n")

    def test_three_backticks_still_work(self):
        text = "```\na\n```\n\n```\nb\n```\n"
        self.assertEqual(
            self.render(text), "<pre><code>a\n</code></pre>\n<pre><code>b\n</code></pre>\n"
        )

    def test_unclosed_long_fence_runs_to_end(self):
        text = "````\n```\naaa\n"
        self.assertEqual(self.render(text), "<pre><code>```\naaa\n</code></pre>\n")

    def test_html_helper(self):
        text = "````markdown\n```python\nprint(1)\n```\n````\n"
        self.assertEqual(
            mistune.html(text),
            '<pre><code class="language-markdown">```python\nprint(1)\n```\n</code></pre>\n',
        )
