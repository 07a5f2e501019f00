// A chat host as the MCP Apps SDK's host side builds one: an MCP client
// connected to the server, the card's resource read and rendered in a
// sandboxed iframe with the CSP its _meta asks for, and an AppBridge that
// passes the card's tools/call and resources/read to the server.
//
// The page's query picks what the host does, as real hosts differ:
//   theme=light|dark   the hostContext theme, with standard style variables
//   height=N           a fixed container N px high (the frame never resizes)
//   maxHeight=N        a flexible container: the frame follows the card's
//                      size reports, up to N px
//   fudge=N            a flexible host that sets the frame to the reported
//                      height plus N px (negative: the known shrink loop)
//   input=only         the tool's input is sent, never its result
//   modes=a,b          the display modes the host offers
//   proxy=none         the server cannot be reached through the host
// and window.host* lets a test see and drive it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const status = document.getElementById('host-status');
const info = { name: 'card-test-host', version: '1.0.0' };
const query = new URLSearchParams(location.search);

// Standard variable names (McpUiStyleVariableKey) as a host sets them.
const palettes = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-background-secondary': '#f3f1ec',
    '--color-text-primary': '#1d1b16',
    '--color-text-secondary': '#5b574e',
    '--color-border-primary': '#d8d3c8',
    '--color-border-info': '#8a5a00',
    '--font-sans': 'Georgia, serif',
    '--border-radius-lg': '14px'
  },
  dark: {
    '--color-background-primary': '#1f2430',
    '--color-background-secondary': '#11141b',
    '--color-background-tertiary': '#191d27',
    '--color-text-primary': '#eceff4',
    '--color-text-secondary': '#a3acbd',
    '--color-border-primary': '#394052',
    '--color-border-secondary': '#56607a',
    '--color-border-info': '#88c0d0',
    '--font-sans': 'Georgia, serif',
    '--border-radius-lg': '14px'
  }
};

window.hostPalettes = palettes;

function hostContext() {
  const context = { displayMode: 'inline', availableDisplayModes: (query.get('modes') || 'inline').split(','), locale: 'en-GB', timeZone: 'UTC' };
  const theme = query.get('theme');
  if (theme) {
    context.theme = theme;
    context.styles = { variables: palettes[theme], css: { fonts: '' } };
    document.body.dataset.theme = theme;
  }
  if (query.get('height')) context.containerDimensions = { height: Number(query.get('height')), maxWidth: 1100 };
  else if (query.get('maxHeight')) context.containerDimensions = { maxHeight: Number(query.get('maxHeight')), maxWidth: 1100 };
  context.safeAreaInsets = { top: 0, right: 0, bottom: 0, left: 0 };
  return context;
}

async function main() {
  const client = new Client(info, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } }
  });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  const tools = (await client.listTools()).tools;
  window.hostTools = tools.map((t) => ({ name: t.name, meta: t._meta || null, annotations: t.annotations || null }));
  const readWindows = tools.find((t) => t.name === 'app__read_windows');
  const uri = getToolUiResourceUri(readWindows);
  const listed = (await client.listResources()).resources.find((r) => r.uri === uri);
  window.hostListedResource = listed ? { uri: listed.uri, mimeType: listed.mimeType, meta: listed._meta || null } : null;
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
  const context = hostContext();
  const dimensions = context.containerDimensions || {};
  if (dimensions.height) iframe.style.height = dimensions.height + 'px';
  else if (dimensions.maxHeight) iframe.style.height = Math.min(200, dimensions.maxHeight) + 'px';

  // Everything the card posts, in order, and what the host did.
  window.hostMessages = [];
  window.hostSizes = [];
  window.addEventListener('message', (event) => {
    if (event.source !== iframe.contentWindow || !event.data) return;
    const m = event.data;
    window.hostMessages.push({ method: m.method || null, id: m.id === undefined ? null : m.id, tool: (m.params && m.params.name) || null, arguments: (m.params && m.params.arguments) || null });
  });

  const bridge = new AppBridge(client, info, { serverTools: {}, serverResources: {} }, { hostContext: context });
  window.hostBridge = bridge;
  window.hostAppCapabilities = null;
  bridge.onsizechange = (size) => {
    window.hostSizes.push(size);
    window.hostCardHeight = size.height;
    // A flexible host follows the card, within its limit, and (with a
    // fudge) gets the frame's height slightly wrong, as some hosts do.
    const limit = (window.hostContextNow.containerDimensions || {}).maxHeight;
    if (limit !== undefined && typeof size.height === 'number') {
      const fudge = Number(query.get('fudge') || 0);
      iframe.style.height = Math.max(0, Math.min(limit, size.height + fudge)) + 'px';
    }
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    const offered = window.hostContextNow.availableDisplayModes || [];
    const granted = offered.includes(mode) ? mode : window.hostContextNow.displayMode;
    window.hostSetContext({ displayMode: granted });
    return { mode: granted };
  };
  window.hostContextNow = context;
  window.hostSetContext = (change) => {
    window.hostContextNow = Object.assign({}, window.hostContextNow, change);
    const limit = (window.hostContextNow.containerDimensions || {});
    if (limit.height) iframe.style.height = limit.height + 'px';
    else if (limit.maxHeight && iframe.getBoundingClientRect().height > limit.maxHeight) iframe.style.height = limit.maxHeight + 'px';
    if (change.theme) document.body.dataset.theme = change.theme;
    bridge.setHostContext(window.hostContextNow);
  };
  window.hostTeardown = async () => {
    await bridge.teardownResource({});
    window.hostMessagesAtTeardown = window.hostMessages.length;
    window.hostTornDown = true;
  };
  window.hostCancel = (reason) => bridge.sendToolCancelled({ reason });
  bridge.oninitialized = async () => {
    window.hostAppCapabilities = bridge.getAppCapabilities ? bridge.getAppCapabilities() : null;
    if (query.get('input') === 'only') {
      // The call waits for the person's approval: its input only.
      await bridge.sendToolInput({ arguments: { windows: ['w1'] } });
      window.hostSentInput = true;
      status.textContent = 'The card shows the call waiting for approval.';
      return;
    }
    // The agent's call whose result the card is shown with.
    const result = await client.callTool({ name: 'app__read_windows', arguments: {} });
    await bridge.sendToolInput({ arguments: {} });
    await bridge.sendToolResult(result);
    window.hostShowedResult = true;
    status.textContent = 'The card shows its result below.';
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  if (query.get('proxy') === 'none') {
    bridge.oncalltool = async () => { throw new Error('The server cannot be reached.'); };
  }
  iframe.srcdoc = html;
  window.hostConnected = true;
}

main().catch((error) => {
  window.hostError = String(error && error.stack || error);
  status.textContent = 'Failed: ' + error;
});
