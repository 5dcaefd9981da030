/*
 * The tariff part of the easy-tariff, easy-cost and easy-plan dialogs: the tariff
 * dropdown and the tariff's rule table, and (with easy-chart-editor.js loaded) the
 * week's chart under it. Uses the shared functions of easy-editor.js (window.EasyEditor),
 * loaded beside it.
 */
(function () {
  'use strict';
  // Node-RED loads a node's scripts side by side, in whatever order they arrive: the object
  // is made by whichever runs first, the shared functions are looked up when called
  var E = (window.EasyEditor = window.EasyEditor || {});
  if (E.tariffPicker) return;
  function t(key, subs) {
    return E.t(key, subs);
  }
  function tn(key, count, subs) {
    return E.tn(key, count, subs);
  }
  function setStatus() {
    return E.setStatus.apply(null, arguments);
  }
  function priceText(x) {
    return E.priceText(x);
  }

  var DAY_KEYS = ['', 'days.1', 'days.2', 'days.3', 'days.4', 'days.5', 'days.6', 'days.7'];

  /** "Mon–Fri", "Sat, Sun", "Mon, Wed–Fri": runs of consecutive days joined. */
  function daysText(days) {
    var parts = [];
    for (var i = 0; i < days.length; i++) {
      var start = days[i];
      while (i + 1 < days.length && days[i + 1] === days[i] + 1) i++;
      var end = days[i];
      if (end - start >= 2) parts.push(t(DAY_KEYS[start]) + '–' + t(DAY_KEYS[end]));
      else if (end > start) parts.push(t(DAY_KEYS[start]) + ', ' + t(DAY_KEYS[end]));
      else parts.push(t(DAY_KEYS[start]));
    }
    return parts.join(', ');
  }

  E.ruleTexts = function (row) {
    var time = t('rules.anyTime');
    if (row.time) {
      if (row.time.allDay) time = t('rules.allDay');
      else time = t(row.time.wraps ? 'rules.rangeWraps' : 'rules.range', { start: row.time.start, end: row.time.end });
    }
    var days = row.days ? daysText(row.days) : t('rules.everyDay');
    if (row.daysField === 'weekday') days += ' ' + t('rules.asWeekday');
    if (row.daysConflict) days += ' ' + t('rules.weekdayIgnored');
    var sensor = '—';
    if (row.sensor) {
      sensor = row.sensor.never
        ? t('rules.sensorNever', { gateway: row.sensor.gatewayId, sensor: row.sensor.sensorId, condition: row.sensor.condition })
        : t('rules.sensorEq', { gateway: row.sensor.gatewayId, sensor: row.sensor.sensorId, value: row.sensor.value });
    }
    return { priority: String(row.priority), net: priceText(row.net), gross: priceText(row.gross), time: time, days: days, sensor: sensor };
  };

  /** The tariff's rules in evaluation order as a table, its warnings under it. */
  E.renderRules = function (container, info) {
    var $c = $(container).empty();
    if (!info) return;
    var $table = $('<table class="easy-rules">').appendTo($c);
    var $head = $('<tr>').appendTo($('<thead>').appendTo($table));
    ['priority', 'net', 'gross', 'time', 'days', 'sensor'].forEach(function (k) {
      $('<th>')
        .text(t('rules.head.' + k, { currency: info.currency, vat: info.vat }))
        .appendTo($head);
    });
    var $body = $('<tbody>').appendTo($table);
    info.rules.forEach(function (row) {
      var texts = E.ruleTexts(row);
      var $tr = $('<tr>').attr('data-rule-index', row.index).appendTo($body);
      ['priority', 'net', 'gross', 'time', 'days', 'sensor'].forEach(function (k) {
        $('<td>')
          .addClass('easy-rules-' + k)
          .text(texts[k])
          .appendTo($tr);
      });
    });
    $('<div class="easy-note easy-rules-note">').text(t('rules.note')).appendTo($c);
    (info.problems || []).forEach(function (p) {
      $('<div class="easy-problem">').text(p.message).appendTo($c);
    });
  };

  /**
   * The tariff dropdown of a dialog (a <select>, the node's property) with its rule
   * table and, when asked, the week's chart. Reloads when the account changes; an id
   * the account does not list stays selectable so nothing is lost offline. `more`:
   * [{ select, value }], further dropdowns of the same tariffs whose empty choice is "none".
   */
  E.tariffPicker = function (opts) {
    var $sel = $(opts.select);
    var $account = $(opts.account);
    var $status = $(opts.status);
    var current = opts.value || '';
    var list = [];
    var body = null;
    var seq = 0;
    var chartSeq = 0;
    var pending = null;

    // short enough for the dialog's width; the full text (with the currency) is the tooltip
    function label(info) {
      return info.name + ' (' + info.id + ')';
    }
    function title(info) {
      return info.name + ' — ' + info.currency + ' (' + info.id + ')';
    }
    // more dropdowns of the same account's tariffs (easy-cost's export tariff): one request fills them all;
    // their empty choice stays selectable (an optional tariff), the main one's is only a prompt
    var more = (opts.more || []).map(function (x) {
      var one = { $sel: $(x.select), value: x.value || '' };
      one.$sel.on('change', function () {
        var v = one.$sel.val();
        if (v !== null && v !== undefined) one.value = v;
        one.$sel.attr('title', one.$sel.find('option:selected').attr('title') || '');
      });
      return one;
    });
    function fillOne($s, value, prompt) {
      $s.empty();
      $('<option>').val('').text(t('tariff.choose')).prop('disabled', prompt).appendTo($s);
      var listed = list.some(function (x) {
        return x.id === value;
      });
      if (value && !listed)
        $('<option>')
          .val(value)
          .text(t('tariff.notListed', { id: value }))
          .appendTo($s);
      list.forEach(function (info) {
        $('<option>').val(info.id).text(label(info)).attr('title', title(info)).appendTo($s);
      });
      $s.val(value);
      $s.attr('title', $s.find('option:selected').attr('title') || '');
    }
    function fill() {
      fillOne($sel, current, true);
      more.forEach(function (one) {
        fillOne(one.$sel, one.value, false);
      });
    }
    function show() {
      var info = null;
      list.forEach(function (x) {
        if (x.id === current) info = x;
      });
      E.renderRules(opts.rules, info);
      if (opts.chart) chart(info);
    }
    function chart(info) {
      var $chart = $(opts.chart);
      var $chartStatus = $(opts.chartStatus);
      var mine = ++chartSeq;
      $chart.empty();
      if (!info || !body) {
        $chartStatus.text('');
        return;
      }
      setStatus($chartStatus, 'loading', t('chart.loading'));
      // with a prices node set (Prices), the chart is its list stacked with the tariff: spot and fees drawn beside
      var prices = opts.prices ? $(opts.prices).val() : '';
      var extra = $.extend(
        { tariff: info.id },
        prices && prices !== '_ADD_' ? { prices: prices } : {},
        opts.plan ? { plan: opts.plan() } : {},
      );
      E.post('easy-account/schedule', $.extend({}, body, extra)).then(
        function (data) {
          if (mine !== chartSeq) return;
          E.renderChart(opts.chart, data);
          if (data.stale) setStatus($chartStatus, 'warning', t('status.stale') + ' ' + E.errorText(data.error));
          else if (data.stackNote) setStatus($chartStatus, 'warning', data.stackNote);
          else $chartStatus.text('').attr('data-state', 'ok');
        },
        function (err) {
          if (mine === chartSeq) setStatus($chartStatus, 'error', E.errorText(err));
        },
      );
    }
    function load() {
      pending = null;
      var mine = ++seq;
      body = E.accountBody($account.val());
      if (!body) {
        list = [];
        fill();
        show();
        setStatus($status, 'warning', t('status.noAccount'));
        return;
      }
      setStatus($status, 'loading', t('status.loadingTariffs'));
      E.post('easy-account/tariffs', body).then(
        function (res) {
          if (mine !== seq) return;
          list = res.tariffs || [];
          fill();
          show();
          var invalid = (res.problems || []).filter(function (p) {
            return p.severity === 'error';
          });
          var text = tn('status.tariffs', list.length);
          if (invalid.length)
            text +=
              ' ' +
              t('status.invalid', {
                messages: invalid
                  .map(function (p) {
                    return p.message;
                  })
                  .join('; '),
              });
          if (res.stale) setStatus($status, 'warning', text + ' ' + t('status.stale') + ' ' + E.errorText(res.error));
          else setStatus($status, invalid.length ? 'warning' : 'ok', text);
        },
        function (err) {
          if (mine !== seq) return;
          list = [];
          fill();
          show();
          setStatus($status, 'error', E.errorText(err));
        },
      );
    }
    function later() {
      if (!pending) pending = setTimeout(load, 0);
    }

    $sel.on('change', function () {
      var v = $sel.val();
      if (v === null || v === undefined || v === current) return;
      current = v;
      show();
    });
    $account.on('change', later);
    if (opts.prices)
      $(opts.prices).on('change', function () {
        if (!pending) show();
      });
    // easy-plan: the chart's planned slots follow the settings as they are typed
    if (opts.planFields)
      $(opts.planFields).on('change', function () {
        if (!pending) show();
      });
    fill();
    later();
  };
})();
