"""Fixtures of the browser tests that open the site in headless Chromium; a module
that needs another shape of them (test_web_browser.py, test_web_classroom.py) defines
its own, which pytest prefers."""
import pytest

from tests.web_helpers import built_site, chromium, serving, site_url


@pytest.fixture(scope="module")
def site():
    """The site, built from the sources as they are, served on loopback -> its URL."""
    d, _ = built_site()
    with serving(d) as srv:
        yield site_url(srv)


@pytest.fixture
def page():
    """A page in a Chromium of its own; the test fails if the page logged an error."""
    b = chromium()
    p = b.new_page()
    yield p
    errors = p.errors()
    p.close()
    b.close()
    assert errors == [], "the page logged errors: %s" % errors
