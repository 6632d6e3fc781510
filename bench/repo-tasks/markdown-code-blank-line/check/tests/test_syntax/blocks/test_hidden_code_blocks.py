from markdown.test_tools import TestCase


class TestHiddenCodeBlocks(TestCase):

    def test_two_blank_lines_kept(self):
        self.assertMarkdownRenders(
            '    one\n\n\n    two\n',
            self.dedent(
                """
                <pre><code>one


                two
                </code></pre>
                """
            )
        )

    def test_three_parts(self):
        self.assertMarkdownRenders(
            '    a = 1\n\n    b = 2\n\n    c = a + b\n',
            self.dedent(
                """
                <pre><code>a = 1

                b = 2

                c = a + b
                </code></pre>
                """
            )
        )

    def test_code_block_then_paragraph(self):
        self.assertMarkdownRenders(
            '    code\n\n    more code\n\nText',
            self.dedent(
                """
                <pre><code>code

                more code
                </code></pre>
                <p>Text</p>
                """
            )
        )

    def test_escaped_after_blank_line(self):
        self.assertMarkdownRenders(
            '    x < y\n\n    y > z\n',
            self.dedent(
                """
                <pre><code>x &lt; y

                y &gt; z
                </code></pre>
                """
            )
        )
