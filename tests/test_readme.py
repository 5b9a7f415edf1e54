"""The README's examples run as written: every ```python block in it is a doctest session."""

import doctest
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_blocks():
    with open(os.path.join(REPO, "README.md")) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_the_readme_examples_run_as_written():
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    attempted = 0
    for i, block in enumerate(python_blocks()):
        test = parser.get_doctest(block, {}, "README.md, python block %d" % (i + 1), "README.md", 0)
        result = runner.run(test)
        assert result.failed == 0, "README.md python block %d fails" % (i + 1)
        attempted += result.attempted
    assert attempted >= 8          # the rules-core example is there and was run


def test_every_python_block_of_the_readme_is_a_doctest():
    """A ```python block without `>>>` would be an example nobody runs."""
    blocks = python_blocks()
    assert blocks
    assert all(b.lstrip().startswith(">>>") for b in blocks)
