/** Escapes text for HTML (text and double-quoted attributes): the sample's pages show user data. */
export function escape(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small page in the sample's style (inline CSS only, so it works offline). */
export function samplePage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
:root{color-scheme:light dark;--bg:#f4f4f5;--card:#fff;--text:#18181b;--muted:#52525b;--border:#d4d4d8;--brand:#4f46e5;--link:#1d4ed8}
@media (prefers-color-scheme:dark){:root{--bg:#18181b;--card:#27272a;--text:#f4f4f5;--muted:#d4d4d8;--border:#52525b;--link:#93c5fd}}
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;background:var(--bg);color:var(--text)}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.75rem 1rem;background:var(--card);border-bottom:1px solid var(--border)}
header strong{margin-right:auto}
main{max-width:48rem;margin:0 auto;padding:1rem}
section{background:var(--card);border-radius:.75rem;padding:1rem 1.25rem;margin:0 0 1rem;box-shadow:0 1px 3px rgb(0 0 0/.15);overflow-wrap:anywhere}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.125rem;margin:0 0 .75rem}
a{color:var(--link)}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);padding:.75rem;border-radius:.5rem;font-size:.875rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.375rem .5rem;border-bottom:1px solid var(--border);vertical-align:top}
.button{display:inline-block;font:inherit;font-weight:600;padding:.5rem 1rem;border:0;border-radius:.5rem;background:var(--brand);color:#fff;text-decoration:none;cursor:pointer}
:focus-visible{outline:3px solid var(--link);outline-offset:2px}
.muted{color:var(--muted);font-size:.875rem}
</style>
</head>
<body>
<header><strong>nestjs-auth sample</strong><a href="/">Home</a><a href="/private">Protected page</a><a href="/dev/inbox">Inbox</a></header>
<main>
${body}
</main>
</body>
</html>`;
}
