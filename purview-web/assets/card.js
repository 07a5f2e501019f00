// The window card inside an MCP Apps host: the face's renderer, talking
// only to the host, over its postMessage JSON-RPC (ui/initialize, then
// tools/call proxied to the app's server). Its calls are an agent's calls
// (the host cannot tell them from the model's), so it never answers an
// approval question: it says where the person answers it.
(function () {
  'use strict';
  var host = window.parent;
  var nextId = 1;
  var waiting = {};
  var change = null;     // the last change the scene was read at
  var reading = false;   // a scene read is under way
  var again = false;     // read once more when it ends
  var onScene = function () {};
  var onStatus = function () {};

  function send(message) { host.postMessage(message, '*'); }
  function request(method, params) {
    return new Promise(function (resolve, reject) {
      var id = nextId++;
      waiting[id] = { resolve: resolve, reject: reject };
      send({ jsonrpc: '2.0', id: id, method: method, params: params });
    });
  }
  function tool(name, args) {
    return request('tools/call', { name: name, arguments: args }).then(function (result) {
      return (result && result.structuredContent) || {};
    });
  }

  // The scene, now (after a change the card made or heard of) or once it
  // changes after the last read: one read at a time, each waiting on the
  // server for the next change, so nothing polls.
  function read(now) {
    if (reading) { again = again || now; return; }
    reading = true;
    tool('app__card_scene', now || change === null ? {} : { after: change }).then(function (answer) {
      if (answer.scene) {
        transport.whereToAnswer = answer.whereToAnswer;
        change = answer.change;
        onScene(answer.scene);
        onStatus('Live');
      }
      return 100;
    }, function () { onStatus('The host did not pass the read on; trying again.'); return 3000; })
      .then(function (pause) {
        reading = false;
        var soon = again; again = false;
        setTimeout(function () { read(soon); }, soon ? 0 : pause);
      });
  }

  window.addEventListener('message', function (event) {
    if (event.source !== host) return;
    var m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && m.id !== undefined && waiting[m.id]) {
      var w = waiting[m.id];
      delete waiting[m.id];
      if (m.error) w.reject(m.error); else w.resolve(m.result);
      return;
    }
    if (m.id !== undefined && m.method) {
      // ping, ui/resource-teardown: nothing to keep, nothing to refuse.
      send({ jsonrpc: '2.0', id: m.id, result: {} });
      return;
    }
    if (m.method === 'ui/notifications/tool-result') read(true);
  });

  var transport = {
    canAnswer: false,
    whereToAnswer: 'Only the person answers this, at the app itself.',
    post: function (kind, body) {
      if (kind !== 'call') {
        return Promise.resolve({ error: { message: 'Only the person answers approval questions, at the app itself.' } });
      }
      return request('tools/call', { name: 'app__card_call', arguments: body }).then(function (result) {
        read(true);
        var answer = (result && result.structuredContent) || {};
        // Refused before the call (a field as typed), or by the app.
        if (answer.error) return answer;
        if (result.isError) return { error: answer };
        return { ok: true, message: answer.message, value: answer.result };
      });
    },
    listen: function (scene, status) {
      onScene = scene;
      onStatus = status;
      request('ui/initialize', {
        appInfo: { name: 'purview-card', version: '1' },
        appCapabilities: {},
        protocolVersion: '2026-01-26'
      }).then(function () {
        send({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
        // The host sizes its frame to the card as it grows and shrinks.
        var told = '';
        var tell = function () {
          var page = document.documentElement;
          var size = { width: Math.ceil(page.scrollWidth), height: Math.ceil(page.scrollHeight) };
          if (JSON.stringify(size) === told) return;
          told = JSON.stringify(size);
          send({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: size });
        };
        if (window.ResizeObserver) new ResizeObserver(tell).observe(document.body);
        read(true);
      }, function () { status('The host did not start the card.'); });
    }
  };
  window.PurviewTransport = transport;
})();
