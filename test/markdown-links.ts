// Links and images of a Markdown page, for the tests that check what the README (and the
// docs it links to) point at: on a package page (npm, the flow library) only absolute
// URLs or files shipped in the tarball show.

export const REPO_RAW = 'https://raw.githubusercontent.com/tariffkit/node-red-easy/main/';
export const REPO_BLOB = 'https://github.com/tariffkit/node-red-easy/blob/main/';

/** Every `[text](target)` and `![alt](target)` outside code blocks, with the anchor cut off. */
export function markdownTargets(markdown: string): Array<{ image: boolean; target: string; anchor: string | null }> {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  const out: Array<{ image: boolean; target: string; anchor: string | null }> = [];
  for (const m of prose.matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const [target, anchor] = m[2].split('#');
    out.push({ image: m[1] === '!', target, anchor: anchor ?? null });
  }
  return out;
}

/** Targets that are files of the package, relative to `fromDir` ('' for the root), normalised: 'docs/nodes.md'. */
export function relativeLinks(markdown: string, fromDir = ''): string[] {
  return markdownTargets(markdown)
    .filter((l) => l.target !== '' && !/^[a-z]+:/i.test(l.target))
    .map((l) => normalise(fromDir ? `${fromDir}/${l.target}` : l.target));
}

function normalise(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}
