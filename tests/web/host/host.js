// A chat host as the MCP Apps SDK's host side builds one: an MCP client
// connected to the server, the card's resource read and rendered in a
// sandboxed iframe with the CSP its _meta asks for, and an AppBridge that
// passes the card's tools/call and resources/read to the server.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const status = document.getElementById('host-status');
const info = { name: 'card-test-host', version: '1.0.0' };

async function main() {
  const client = new Client(info, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } }
  });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  const tools = (await client.listTools()).tools;
  window.hostTools = tools.map((t) => ({ name: t.name, meta: t._meta || null }));
  const readWindows = tools.find((t) => t.name === 'app__read_windows');
  const uri = getToolUiResourceUri(readWindows);
  const resource = (await client.readResource({ uri })).contents[0];
  window.hostResource = { uri: resource.uri, mimeType: resource.mimeType, meta: resource._meta || null };
  // The CSP the resource's _meta.ui.csp asks for: no domain named, so no
  // network at all, and only the document's own inline style and script.
  const csp = resource._meta && resource._meta.ui && resource._meta.ui.csp;
  const none = !csp || ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains']
    .every((k) => !csp[k] || csp[k].length === 0);
  if (!none) throw new Error('the card asks for network access');
  const policy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";
  const html = resource.text.replace('<head>', '<head><meta http-equiv="Content-Security-Policy" content="' + policy + '">');

  const iframe = document.getElementById('card');
  const bridge = new AppBridge(client, info, { serverTools: {}, serverResources: {} });
  // A real host would size the frame to this; the page keeps it fixed.
  bridge.onsizechange = (size) => { window.hostCardHeight = size.height; };
  bridge.oninitialized = async () => {
    // The agent's call whose result the card is shown with.
    const result = await client.callTool({ name: 'app__read_windows', arguments: {} });
    await bridge.sendToolInput({ arguments: {} });
    await bridge.sendToolResult(result);
    window.hostShowedResult = true;
    status.textContent = 'The card shows its result below.';
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  window.hostConnected = true;
}

main().catch((error) => {
  window.hostError = String(error && error.stack || error);
  status.textContent = 'Failed: ' + error;
});
