import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';
import { createRenderer } from '../../views/chat/webview/markdown';

const { window } = new JSDOM('');
const render = createRenderer(createDOMPurify(window as unknown as Window & typeof globalThis));

/** Put the HTML into a live jsdom page that runs scripts, and report whether any ran. */
function runsScript(html: string): boolean {
  const dom = new JSDOM(`<body><div id="x"></div></body>`, { runScripts: 'dangerously' });
  const w = dom.window as unknown as { pwned?: boolean; document: Document };
  w.document.getElementById('x')!.innerHTML = html;
  for (const el of Array.from(w.document.querySelectorAll('*'))) {
    for (const attr of Array.from(el.attributes)) if (attr.name.startsWith('on')) return true;
  }
  return w.pwned === true || w.document.querySelector('script') !== null;
}

describe('markdown rendering', () => {
  it('renders markdown with highlighted code', () => {
    const html = render('# Title\n\nSome **bold** text.\n\n```python\ndef f(x):\n    return x + 1\n```\n');
    assert.match(html, /<h1>Title<\/h1>/);
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<pre class="code"><code class="hljs"><span class="hljs-keyword">def<\/span>/);
  });
  it('escapes raw HTML and scripts in model output', () => {
    const evil = 'Hello <script>window.pwned = true</script> <img src=x onerror="window.pwned=true"> <b onclick="x()">b</b>';
    const html = render(evil);
    assert.equal(runsScript(html), false);
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<img/i);
    assert.match(html, /&lt;script&gt;/);
  });
  it('drops javascript: links and keeps normal ones', () => {
    const html = render('[click](javascript:alert(1)) and [docs](https://example.com/x)');
    assert.doesNotMatch(html, /href="javascript:/i);
    assert.match(html, /href="https:\/\/example.com\/x"/);
  });
  it('keeps code in an unknown language as escaped text', () => {
    const html = render('```nosuchlang\n<b>not bold</b>\n```');
    assert.match(html, /&lt;b&gt;not bold&lt;\/b&gt;/);
  });
  it('renders a huge reply in one go', () => {
    const big = Array.from({ length: 5000 }, (_, i) => `line ${i} with \`code\` and <tag>`).join('\n\n');
    const html = render(big);
    assert.match(html, /line 4999/);
    assert.equal(runsScript(html), false);
  });
});
