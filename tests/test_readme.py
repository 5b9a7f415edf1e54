"""The README's and docs/'s examples run as written: every ```python block in them is a doctest
session; the front page stays a front page and every page of docs/ is in its index."""

import doctest
import glob
import os
import re

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "*.md")))


def read(name):
    with open(os.path.join(REPO, name)) as f:
        return f.read()


def python_blocks(name="README.md"):
    return re.findall(r"```python\n(.*?)```", read(name), re.S)


def all_python_blocks():
    return [(name, i, block) for name in PAGES for i, block in enumerate(python_blocks(name))]


@pytest.mark.parametrize("name", PAGES)
def test_the_examples_run_as_written(name):
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(python_blocks(name)):
        test = parser.get_doctest(block, {}, "%s, python block %d" % (name, i + 1), name, 0)
        result = runner.run(test)
        assert result.failed == 0, "%s python block %d fails" % (name, i + 1)


def test_the_rules_core_example_is_there():
    attempted = sum(len(doctest.DocTestParser().get_examples(b)) for _n, _i, b in all_python_blocks())
    assert attempted >= 8          # the rules-core example is there (docs/code.md)


def test_the_readme_is_a_front_page_and_docs_has_an_index():
    assert len(read("README.md").splitlines()) <= 320
    assert "docs/README.md" in read("README.md")
    index = read(os.path.join("docs", "README.md"))
    for page in PAGES:
        if page.startswith("docs" + os.sep) and not page.endswith("README.md"):
            assert "(%s)" % os.path.basename(page) in index, "%s is not in docs/README.md" % page


@pytest.mark.parametrize("name", PAGES)
def test_relative_links_lead_to_files(name):
    base = os.path.dirname(os.path.join(REPO, name))
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", read(name)):
        if not re.match(r"[a-z]+:", target):
            assert os.path.exists(os.path.join(base, target)), "%s links to %s" % (name, target)


def test_every_python_block_of_the_pages_is_a_doctest():
    """A ```python block without `>>>` would be an example nobody runs."""
    blocks = all_python_blocks()
    assert blocks
    assert all(b.lstrip().startswith(">>>") for _n, _i, b in blocks)
