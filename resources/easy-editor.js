/*
 * Shared editor code of @tariffkit/node-red-easy: the parts every edit dialog uses to
 * talk to the package's admin routes (nodes/lib/editor/admin-routes.ts) and to show
 * what comes back: words, requests, errors, status lines, the dialogs' styles. Node-RED
 * serves it from the package's resources/ folder; every node's HTML loads it and the
 * dialog parts it needs (easy-account-editor.js, easy-tariff-editor.js,
 * easy-chart-editor.js, easy-sensors-editor.js, easy-plan-editor.js), side by side in
 * whatever order they arrive: whichever runs first makes window.EasyEditor, and each
 * part defines its functions once. Words come from easy-account's message catalogue
 * (easy-account.editor.*), data is always set as text, never as HTML.
 */
(function () {
  'use strict';
  // the dialog scripts may have run first (Node-RED loads them side by side) and made the object
  var E = (window.EasyEditor = window.EasyEditor || {});
  if (E.t) return;

  // the dialogs' few styles, once
  $('<style id="easy-editor-style">')
    .text(
      [
        '.easy-state-loading { color: #888; }',
        '.easy-state-ok { color: #3a7d2c; }',
        '.easy-state-warning { color: #a66a00; }',
        '.easy-state-error, .easy-problem { color: #b0281a; }',
        'table.easy-rules, table.easy-sensors-table { width: 100%; border-collapse: collapse; font-size: 12px; margin: 4px 0; }',
        'table.easy-rules th, table.easy-rules td, table.easy-sensors-table th, table.easy-sensors-table td { border-bottom: 1px solid #ddd; padding: 2px 4px; text-align: left; vertical-align: top; }',
        '.easy-chart-legend { font-size: 11px; }',
        '.easy-chart-legend-item { margin-right: 12px; white-space: nowrap; }',
        '.easy-chart-swatch { display: inline-block; width: 18px; margin-right: 4px; vertical-align: middle; }',
        '.easy-chart-info { font-size: 11px; min-height: 1.4em; color: #555; }',
        '.easy-block { margin-top: 6px; }',
        '.easy-note { font-size: 11px; color: #777; margin: 2px 0 4px; }',
      ].join('\n'),
    )
    .appendTo('head');

  /** A message of easy-account's catalogue, under easy-account.editor. */
  function t(key, subs) {
    var def = RED.nodes.getType('easy-account');
    var full = 'easy-account.editor.' + key;
    return def && def._ ? def._(full, subs) : full;
  }
  E.t = t;

  /**
   * A message that counts something: `key` + "One" for 1 ("1 tariff"), else `key` ("7 tariffs").
   * Chosen here rather than by i18next's plural suffixes, which differ between the i18next
   * releases of the Node-RED versions the package supports.
   */
  function tn(key, count, subs) {
    return t(Number(count) === 1 ? key + 'One' : key, $.extend({ count: count }, subs));
  }
  E.tn = tn;

  // ------------------------------------------------------------------------------------
  // Requests

  /**
   * What a dialog sends about an account: its id (a deployed account lends its stored
   * token), the base URL and zone as edited, and the token only while it is typed and
   * not yet deployed (after a deploy the editor only knows has_token).
   */
  E.accountBody = function (accountId) {
    var acc = accountId && accountId !== '_ADD_' ? RED.nodes.node(accountId) : null;
    if (!acc) return null;
    var body = { id: acc.id, baseUrl: acc.baseUrl || '', timezone: acc.timezone || '' };
    var token = acc.credentials && acc.credentials.token;
    if (typeof token === 'string' && token !== '' && token !== '__PWRD__') body.token = token;
    return body;
  };

  function request(method, path, body) {
    return new Promise(function (resolve, reject) {
      $.ajax({
        url: path,
        method: method,
        contentType: 'application/json',
        data: body === undefined ? undefined : JSON.stringify(body),
        dataType: 'json',
        cache: false,
      }).then(
        function (data) {
          resolve(data);
        },
        function (xhr) {
          reject(errorOf(xhr));
        },
      );
    });
  }
  E.post = function (path, body) {
    return request('POST', path, body);
  };
  E.get = function (path) {
    return request('GET', path);
  };

  /** { code, message } of a failed request: the route's own error, or what the HTTP status says. */
  function errorOf(xhr) {
    var json = xhr && xhr.responseJSON;
    if (json && json.error && json.error.code) return json.error;
    if (xhr && (xhr.status === 401 || xhr.status === 403)) return { code: 'permission', message: '' };
    if (xhr && xhr.status === 0) return { code: 'no_runtime', message: '' };
    return { code: 'failed', message: xhr ? String(xhr.status) : '' };
  }

  /** An error in words: the catalogue's sentence for its code, the detail after it. */
  E.errorText = function (err) {
    var code = err && err.code ? err.code : 'failed';
    var words = t('errors.' + code);
    if (words === 'easy-account.editor.errors.' + code) words = t('errors.failed');
    // the detail as a sentence of its own: it may hold brackets already
    var detail =
      err && err.message
        ? String(err.message)
            .trim()
            .replace(/[\s.]+$/, '')
        : '';
    // the dialog's own mistake (no token, a URL without https://): its words say what is missing
    if (code === 'bad_request' && detail) return detail.charAt(0).toUpperCase() + detail.slice(1) + '.';
    return detail ? words + ' ' + t('test.detail', { detail: detail }) : words;
  };

  /** Sets a status line: text plus a state class (loading, ok, warning, error). */
  function setStatus($el, state, text) {
    $el
      .removeClass('easy-state-loading easy-state-ok easy-state-warning easy-state-error')
      .addClass('easy-state-' + state)
      .attr('data-state', state)
      .text(text);
  }
  E.setStatus = setStatus;

  /**
   * Whether a typedInput's value can be sent as its type (easy-plan's switch values,
   * easy-peak's guard values): the runtime reads them the same way at deploy (typedValue).
   */
  E.typedValueOk = function (v, type) {
    var text = v === undefined || v === null ? '' : String(v);
    if (type === undefined || type === 'off' || type === 'str') return true;
    if (type === 'bool') return text === 'true' || text === 'false';
    if (type === 'num') return text.trim() !== '' && isFinite(Number(text));
    if (type === 'json') {
      try {
        JSON.parse(text);
        return true;
      } catch (_err) {
        return false;
      }
    }
    return false;
  };

  /** A price as the dialogs show it: at most five decimals, no trailing zeros. */
  E.priceText = function (x) {
    return String(Number(Number(x).toFixed(5)));
  };

  // ------------------------------------------------------------------------------------
  // Records output (docs/records.md): easy-tariff, easy-cost, easy-plan

  /**
   * The records rows inside `container` of a dialog, filled from `node`: the format and, for
   * Home Assistant, the device, state topic and discovery prefix. `baseOutputs()` is the
   * node's outputs without records; the hidden #node-input-outputs gets one more with records.
   */
  E.recordsRows = function (node, container, baseOutputs) {
    var $c = $(container).empty();
    var row = function (id, icon, label) {
      var $row = $('<div class="form-row">').appendTo($c);
      $('<label>')
        .attr('for', id)
        .append($('<i>').addClass('fa ' + icon), ' ', $('<span>').text(t(label)))
        .appendTo($row);
      return $row;
    };
    var $select = $('<select id="node-input-records" style="width: 70%;">').appendTo(
      row('node-input-records', 'fa-database', 'records.label'),
    );
    [
      ['', 'records.off'],
      ['influx-out', 'records.influxOut'],
      ['influx-batch', 'records.influxBatch'],
      ['homeassistant', 'records.homeassistant'],
    ].forEach(function (o) {
      $('<option>').val(o[0]).text(t(o[1])).appendTo($select);
    });
    var $ha = $('<div>').appendTo($c);
    var text = function (id, icon, label, value, placeholder) {
      var $row = $('<div class="form-row">').appendTo($ha);
      $('<label>')
        .attr('for', id)
        .append($('<i>').addClass('fa ' + icon), ' ', $('<span>').text(t(label)))
        .appendTo($row);
      $('<input type="text" style="width: 70%;">')
        .attr('id', id)
        .attr('placeholder', placeholder)
        .val(value || '')
        .appendTo($row);
    };
    text('node-input-recordsDevice', 'fa-home', 'records.device', node.recordsDevice, t('records.devicePlaceholder'));
    text('node-input-recordsTopic', 'fa-sitemap', 'records.topic', node.recordsTopic, 'node-red-easy');
    text('node-input-recordsPrefix', 'fa-search', 'records.prefix', node.recordsPrefix, 'homeassistant');
    var $influx = $('<div class="form-row">').appendTo($c);
    $('<label>')
      .attr('for', 'node-input-recordsConfirm')
      .append($('<i>').addClass('fa fa-check-square-o'), ' ', $('<span>').text(t('records.confirm')))
      .appendTo($influx);
    $('<input type="checkbox" id="node-input-recordsConfirm" style="width: auto; vertical-align: top;">')
      .prop('checked', node.recordsConfirm === true)
      .appendTo($influx);
    $('<span>')
      .text(' ' + t('records.confirmTip'))
      .appendTo($influx);
    $('<div class="form-tips">').text(t('records.tip')).appendTo($c);
    var sync = function () {
      var format = $select.val();
      $ha.toggle(format === 'homeassistant');
      $influx.toggle(format === 'influx-out' || format === 'influx-batch');
      $('#node-input-outputs').val(baseOutputs() + (format ? 1 : 0));
    };
    $select.val(node.records || '').on('change', sync);
    sync();
    return sync;
  };
})();
