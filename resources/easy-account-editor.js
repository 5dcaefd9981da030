/*
 * easy-account's dialog: the time-zone picker and the words of "Test connection".
 * Uses the shared functions of easy-editor.js (window.EasyEditor), loaded beside it.
 */
(function () {
  'use strict';
  // Node-RED loads a node's scripts side by side, in whatever order they arrive: the object
  // is made by whichever runs first, the shared functions are looked up when called
  var E = (window.EasyEditor = window.EasyEditor || {});
  if (E.zonePicker) return;
  function t(key, subs) {
    return E.t(key, subs);
  }
  function tn(key, count, subs) {
    return E.tn(key, count, subs);
  }

  /**
   * Fills a <select> with every zone, the machine's default first ('' = the machine's
   * zone), filtered by a search box. Works before the list arrives: the default and the
   * node's current zone are there at once.
   */
  E.zonePicker = function (opts) {
    var $sel = $(opts.select);
    var $search = $(opts.search);
    var machine = opts.machine || '';
    var current = opts.value || '';
    var zones = [];

    function option(value, text) {
      return $('<option>').val(value).text(text);
    }
    function fill() {
      var q = String($search.val() || '')
        .trim()
        .toLowerCase()
        .replace(/\s+/g, '_');
      $sel.empty();
      $sel.append(option('', machine ? t('zone.machine', { zone: machine }) : t('zone.machineUnknown')));
      if (current && zones.indexOf(current) < 0)
        $sel.append(option(current, zones.length ? t('zone.unknown', { zone: current }) : current));
      zones.forEach(function (z) {
        if (!q || z.toLowerCase().indexOf(q) >= 0 || z === current) $sel.append(option(z, z));
      });
      $sel.val(current);
    }
    $sel.on('change', function () {
      var v = $sel.val();
      if (v !== null && v !== undefined) current = v;
    });
    $search.on('input', fill);
    fill();
    E.get('easy-account/timezones').then(
      function (res) {
        zones = res.zones || [];
        if (res.machine) machine = res.machine;
        fill();
      },
      function () {
        // the browser's own list is second best (the runtime's zone data decides)
        zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
        fill();
      },
    );
  };

  /** The answer of "Test connection" in words. */
  E.connectionText = function (res) {
    if (res.ok) {
      var text = tn('test.ok', res.tariffs);
      return res.invalid ? text + ' ' + tn('test.invalid', res.invalid) : text;
    }
    var words = t('test.' + res.outcome);
    if (words === 'easy-account.editor.test.' + res.outcome) words = t('errors.' + res.outcome);
    // the details as a sentence of their own: they may hold brackets already
    var detail = res.message
      ? String(res.message)
          .trim()
          .replace(/[\s.]+$/, '')
      : '';
    return detail ? words + ' ' + t('test.detail', { detail: detail }) : words;
  };
})();
