"""Fails when a page of the built site links to a page, file or #anchor of the site that does not exist. External
links are not followed (the build has no network). Standard library only."""
import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get('id'):
            self.ids.add(attrs['id'])
        if tag == 'a' and attrs.get('name'):
            self.ids.add(attrs['name'])
        for attr in ('href', 'src'):
            if attrs.get(attr) and tag in ('a', 'img', 'link', 'script'):
                self.links.append(attrs[attr])


def main(site):
    pages = {}
    for directory, _, files in os.walk(site):
        for name in files:
            if name.endswith('.html'):
                path = os.path.join(directory, name)
                page = Page()
                with open(path, encoding='utf-8') as f:
                    page.feed(f.read())
                pages[os.path.normpath(path)] = page
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith('//') or link.startswith('mailto:'):
                continue
            if not parts.path:
                target = path
            elif parts.path.startswith('/'):  # from the site's root (the 404 page's links)
                target = os.path.normpath(os.path.join(site, unquote(parts.path).lstrip('/')))
            else:
                target = os.path.normpath(os.path.join(os.path.dirname(path), unquote(parts.path)))
            if os.path.isdir(target):
                target = os.path.join(target, 'index.html')
            if not os.path.exists(target):
                broken.append(f'{os.path.relpath(path, site)}: {link} (no such file)')
            elif parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
                broken.append(f'{os.path.relpath(path, site)}: {link} (no such anchor)')
    for line in broken:
        print(line)
    print(f'{len(pages)} pages, {sum(len(p.links) for p in pages.values())} links checked, {len(broken)} broken')
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
