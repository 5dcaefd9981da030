/*
 * Shared editor code of @tariffkit/node-red-easy: the four edit dialogs use it to talk
 * to the package's admin routes (nodes/admin-routes.ts) and to draw what comes back.
 * Node-RED serves it from the package's resources/ folder; every node's HTML loads it,
 * and it defines window.EasyEditor only once. Words come from easy-account's message
 * catalogue (easy-account.editor.*), data is always set as text, never as HTML.
 */
(function () {
  'use strict';
  if (window.EasyEditor) return;
  var E = (window.EasyEditor = {});
  var SVG = 'http://www.w3.org/2000/svg';

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
    return err && err.message ? words + ' (' + err.message + ')' : words;
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

  // ------------------------------------------------------------------------------------
  // Time zones (easy-account)

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

  // ------------------------------------------------------------------------------------
  // Test connection (easy-account)

  E.connectionText = function (res) {
    if (res.ok) {
      var text = t('test.ok', { count: res.tariffs });
      return res.invalid ? text + ' ' + t('test.invalid', { count: res.invalid }) : text;
    }
    var words = t('test.' + res.outcome);
    if (words === 'easy-account.editor.test.' + res.outcome) words = t('errors.' + res.outcome);
    return res.message ? words + ' (' + res.message + ')' : words;
  };

  // ------------------------------------------------------------------------------------
  // Tariffs: dropdown, rule table, chart (easy-tariff, easy-cost)

  var DAY_KEYS = ['', 'days.1', 'days.2', 'days.3', 'days.4', 'days.5', 'days.6', 'days.7'];

  function priceText(x) {
    return String(Number(Number(x).toFixed(5)));
  }

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

  function svg(name, attrs, parent) {
    var el = document.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(function (k) {
      el.setAttribute(k, attrs[k]);
    });
    if (parent) parent.appendChild(el);
    return el;
  }

  function lineLabel(line) {
    if (!line.changed) return line.sensors ? t('chart.base') : t('chart.price');
    return t('chart.alt', { gateway: line.changed.gatewayId, sensor: line.changed.sensorId, value: line.changed.value });
  }

  function priceOfLine(line, at) {
    for (var i = 0; i < line.segments.length; i++) {
      var s = line.segments[i];
      if (s.from <= at && at < s.to) return s.price;
    }
    return null;
  }

  /**
   * The week's price as a step chart in plain SVG: one line per sensor situation (the
   * alternative ones dashed), today shaded, now marked, a label per local day. The
   * segments are the runtime engine's `schedule`, drawn as they are.
   */
  E.renderChart = function (container, data) {
    var $c = $(container).empty();
    var W = 560,
      H = 190,
      L = 44,
      R = 8,
      T = 8,
      B = 30;
    var span = data.to - data.from;
    var x = function (ms) {
      return L + ((ms - data.from) / span) * (W - L - R);
    };
    if (data.maxPrice === null) {
      $('<div class="easy-chart-empty">').text(t('chart.noPrice')).appendTo($c);
      return;
    }
    var hi = data.maxPrice > 0 ? data.maxPrice * 1.15 : 1;
    var lo = Math.min(0, data.minPrice);
    var y = function (p) {
      return T + ((hi - p) / (hi - lo)) * (H - T - B);
    };
    var root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, width: '100%', role: 'img', class: 'easy-chart' });
    svg('title', {}, root).textContent = t('chart.caption', { zone: data.timezone, currency: data.currency });

    svg(
      'rect',
      {
        class: 'easy-chart-today',
        x: x(data.today.from),
        y: T,
        width: x(data.today.to) - x(data.today.from),
        height: H - T - B,
        fill: 'rgba(255, 196, 0, 0.18)',
      },
      root,
    );
    var dayFormat = new Intl.DateTimeFormat(undefined, { timeZone: data.timezone, weekday: 'short', day: 'numeric' });
    data.dayStarts.forEach(function (at, i) {
      svg('line', { class: 'easy-chart-day', x1: x(at), x2: x(at), y1: T, y2: H - B, stroke: '#ccc', 'stroke-dasharray': '2,2' }, root);
      if (i === data.dayStarts.length - 1) return;
      var mid = (x(at) + x(data.dayStarts[i + 1])) / 2;
      var label = svg(
        'text',
        {
          x: mid,
          y: H - B + 12,
          'text-anchor': 'middle',
          'font-size': 10,
          fill: '#555',
          class: i === 0 ? 'easy-chart-label easy-chart-label-today' : 'easy-chart-label',
        },
        root,
      );
      label.textContent = dayFormat.format(at);
      if (i === 0) {
        var today = svg(
          'text',
          { x: mid, y: H - B + 24, 'text-anchor': 'middle', 'font-size': 9, 'font-weight': 'bold', fill: '#8a6d00' },
          root,
        );
        today.textContent = t('chart.today');
      }
    });

    // y axis: the prices that occur (a step chart has few), else 0 / half / top
    var prices = [];
    data.lines.forEach(function (line) {
      line.segments.forEach(function (s) {
        if (s.price !== null && prices.indexOf(s.price) < 0) prices.push(s.price);
      });
    });
    var ticks = prices.length <= 5 ? prices.concat(lo === 0 ? [0] : []) : [lo, (lo + data.maxPrice) / 2, data.maxPrice];
    ticks.forEach(function (p) {
      svg('line', { x1: L, x2: W - R, y1: y(p), y2: y(p), stroke: '#eee' }, root);
      var tick = svg('text', { x: L - 4, y: y(p) + 3, 'text-anchor': 'end', 'font-size': 9, fill: '#555', class: 'easy-chart-tick' }, root);
      tick.textContent = priceText(p);
    });
    svg('line', { x1: L, x2: L, y1: T, y2: H - B, stroke: '#999' }, root);

    var styles = [
      { stroke: '#1f6fb2', width: 2, dash: '' },
      { stroke: '#d9730d', width: 1.5, dash: '5,3' },
      { stroke: '#7b3fa0', width: 1.5, dash: '2,2' },
      { stroke: '#2e8540', width: 1.5, dash: '6,2,2,2' },
    ];
    var $legend = $('<div class="easy-chart-legend">');
    data.lines.forEach(function (line, i) {
      var st = styles[i % styles.length];
      var d = '';
      var penDown = false;
      line.segments.forEach(function (s) {
        if (s.price === null) {
          penDown = false;
          return;
        }
        d +=
          (penDown ? ' V' + y(s.price).toFixed(1) : ' M' + x(s.from).toFixed(1) + ',' + y(s.price).toFixed(1)) + ' H' + x(s.to).toFixed(1);
        penDown = true;
      });
      svg(
        'path',
        {
          d: d.trim(),
          fill: 'none',
          stroke: st.stroke,
          'stroke-width': st.width,
          'stroke-dasharray': st.dash,
          class: i === 0 ? 'easy-chart-line easy-chart-line-base' : 'easy-chart-line easy-chart-line-alt',
          'data-key': line.key,
        },
        root,
      );
      var $item = $('<span class="easy-chart-legend-item">').attr('data-key', line.key).appendTo($legend);
      $('<span class="easy-chart-swatch">')
        .css({ 'border-top': st.width + 'px ' + (st.dash ? 'dashed' : 'solid') + ' ' + st.stroke })
        .appendTo($item);
      $('<span>').text(lineLabel(line)).appendTo($item);
    });
    if (data.plan) {
      // easy-plan: the slots it would plan now, as a band along the bottom of the plot
      data.plan.slots.forEach(function (p) {
        svg(
          'rect',
          { class: 'easy-chart-planned', x: x(p.from), y: H - B - 6, width: Math.max(1, x(p.to) - x(p.from)), height: 6, fill: '#27ae60' },
          root,
        );
      });
    }
    if (data.now >= data.from && data.now < data.to) {
      svg(
        'line',
        { class: 'easy-chart-now', x1: x(data.now), x2: x(data.now), y1: T, y2: H - B, stroke: '#c0392b', 'stroke-width': 1 },
        root,
      );
    }
    $c.append(root);
    var $info = $('<div class="easy-chart-info">')
      .attr('id', (container.replace ? container.replace(/^#/, '') : 'easy-chart') + '-info')
      .text(' ')
      .appendTo($c);
    $c.append($legend);
    $('<div class="easy-note easy-chart-caption">')
      .text(t('chart.caption', { zone: data.timezone, currency: data.currency }))
      .appendTo($c);
    var noPrice = data.lines[0].segments.some(function (s) {
      return s.price === null;
    });
    if (noPrice) $('<div class="easy-problem">').text(t('chart.gaps')).appendTo($c);
    if (data.plan) {
      var planText = data.plan.error
        ? t('chart.planError', { error: data.plan.error })
        : t('chart.planned', { count: data.plan.slots.length });
      $('<div class="easy-note easy-chart-plan">')
        .toggleClass('easy-problem', !!data.plan.error)
        .text(planText + (data.plan.shortfalls.length ? ' ' + data.plan.shortfalls[0] : ''))
        .appendTo($c);
    }

    var timeFormat = new Intl.DateTimeFormat(undefined, { timeZone: data.timezone, weekday: 'short', hour: '2-digit', minute: '2-digit' });
    root.addEventListener('mousemove', function (ev) {
      var box = root.getBoundingClientRect();
      var px = ((ev.clientX - box.left) / box.width) * W;
      if (px < L || px > W - R) return;
      var at = data.from + ((px - L) / (W - L - R)) * span;
      var parts = data.lines.map(function (line) {
        var p = priceOfLine(line, at);
        return (
          lineLabel(line) + ': ' + (p === null ? t('chart.none') : t('chart.perKwh', { price: priceText(p), currency: data.currency }))
        );
      });
      $info.text(timeFormat.format(at) + ' — ' + parts.join('; '));
    });
  };

  /**
   * The tariff dropdown of a dialog (a <select>, the node's property) with its rule
   * table and, when asked, the week's chart. Reloads when the account changes; an id
   * the account does not list stays selectable so nothing is lost offline.
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
    function fill() {
      $sel.empty();
      $('<option>').val('').text(t('tariff.choose')).prop('disabled', true).appendTo($sel);
      var listed = list.some(function (x) {
        return x.id === current;
      });
      if (current && !listed)
        $('<option>')
          .val(current)
          .text(t('tariff.notListed', { id: current }))
          .appendTo($sel);
      list.forEach(function (info) {
        $('<option>').val(info.id).text(label(info)).attr('title', title(info)).appendTo($sel);
      });
      $sel.val(current);
      $sel.attr('title', $sel.find('option:selected').attr('title') || '');
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
      E.post('easy-account/schedule', $.extend({}, body, { tariff: info.id }, opts.plan ? { plan: opts.plan() } : {})).then(
        function (data) {
          if (mine !== chartSeq) return;
          E.renderChart(opts.chart, data);
          if (data.stale) setStatus($chartStatus, 'warning', t('status.stale') + ' ' + E.errorText(data.error));
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
          var text = t('status.tariffs', { count: list.length });
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
    // easy-plan: the chart's planned slots follow the settings as they are typed
    if (opts.planFields)
      $(opts.planFields).on('change', function () {
        if (!pending) show();
      });
    fill();
    later();
  };

  // ------------------------------------------------------------------------------------
  // Sensors (easy-sensors)

  E.kindText = function (kind) {
    if (!kind) return t('kind.unknown');
    if (kind.kind === 'modbus') {
      var q = t('kind.quantity.' + kind.quantity);
      return kind.phase
        ? t('kind.modbusPhase', { quantity: q, phase: kind.phase, address: kind.address })
        : t('kind.modbus', { quantity: q, address: kind.address });
    }
    if (kind.kind === 'digital_input' || kind.kind === 'relay' || kind.kind === 'analogue_input')
      return t('kind.' + kind.kind, { channel: kind.channel });
    if (kind.kind === 'gsm_signal') return t('kind.gsm_signal');
    return t('kind.unknown');
  };

  function splitIds(text) {
    var out = [];
    String(text || '')
      .split(/[\s,]+/)
      .forEach(function (id) {
        if (id && out.indexOf(id) < 0) out.push(id);
      });
    return out;
  }

  /**
   * The gateway's sensors as a table with a tick per sensor, kept in step with the
   * node's `sensors` filter (a text field: ids, comma separated; empty = all), and the
   * gateway field's suggestions (gateways this account has used).
   */
  E.sensorsPicker = function (opts) {
    var $account = $(opts.account);
    var $gateway = $(opts.gateway);
    var $filter = $(opts.filter);
    var $list = $(opts.list);
    var $status = $(opts.status);
    var $suggest = $(opts.suggestions);
    var seq = 0;
    var timer = null;

    function suggestions() {
      var id = $account.val();
      var found = [];
      var add = function (g) {
        if (typeof g === 'string' && g.trim() && found.indexOf(g.trim()) < 0) found.push(g.trim());
      };
      // this workspace's own (perhaps undeployed) easy-sensors nodes of the same account
      RED.nodes.eachNode(function (n) {
        if (n.type === 'easy-sensors' && n.account === id) add(n.gateway);
      });
      var fillList = function () {
        $suggest.empty();
        found.forEach(function (g) {
          $('<option>').val(g).appendTo($suggest);
        });
      };
      fillList();
      E.post('easy-account/gateways', { id: id && id !== '_ADD_' ? id : '' }).then(
        function (res) {
          (res.gateways || []).forEach(add);
          fillList();
        },
        function () {
          /* suggestions are a convenience: typing still works */
        },
      );
    }

    function syncTicks() {
      var wanted = splitIds($filter.val());
      $list.find('input.easy-sensors-pick').each(function () {
        $(this).prop('checked', wanted.indexOf($(this).val()) >= 0);
      });
    }

    function render(sensors) {
      $list.empty();
      var $table = $('<table class="easy-sensors-table">').appendTo($list);
      var $head = $('<tr>').appendTo($('<thead>').appendTo($table));
      ['pick', 'id', 'name', 'value', 'kind'].forEach(function (k) {
        $('<th>')
          .text(t('sensors.head.' + k))
          .appendTo($head);
      });
      var $body = $('<tbody>').appendTo($table);
      sensors.forEach(function (s) {
        var $tr = $('<tr>').attr('data-sensor-id', s.id).appendTo($body);
        var $box = $('<input type="checkbox" class="easy-sensors-pick">').val(s.id).css({ width: 'auto', margin: 0 });
        $('<td>').append($box).appendTo($tr);
        $('<td>').append($('<code>').text(s.id)).appendTo($tr);
        $('<td>').text(s.name).appendTo($tr);
        $('<td>')
          .text(String(s.value) + (s.unit ? ' ' + s.unit : ''))
          .attr('title', t('sensors.at', { time: new Date(s.timestamp).toLocaleString() }))
          .appendTo($tr);
        $('<td>').text(E.kindText(s.kind)).appendTo($tr);
      });
      $('<div class="easy-note">').text(t('sensors.tip')).appendTo($list);
      syncTicks();
    }

    function load() {
      timer = null;
      var mine = ++seq;
      var body = E.accountBody($account.val());
      var gateway = String($gateway.val() || '').trim();
      if (!body) {
        $list.empty();
        setStatus($status, 'warning', t('status.noAccount'));
        return;
      }
      if (!gateway) {
        $list.empty();
        setStatus($status, 'warning', t('sensors.noGateway'));
        return;
      }
      setStatus($status, 'loading', t('sensors.loading', { gateway: gateway }));
      E.post('easy-account/sensors', $.extend({}, body, { gateway: gateway })).then(
        function (res) {
          if (mine !== seq) return;
          render(res.sensors || []);
          setStatus($status, 'ok', t('sensors.loaded', { count: (res.sensors || []).length, gateway: gateway }));
        },
        function (err) {
          if (mine !== seq) return;
          $list.empty();
          setStatus($status, 'error', E.errorText(err));
        },
      );
    }
    function later(ms) {
      clearTimeout(timer);
      timer = setTimeout(load, ms);
    }

    $list.on('change', 'input.easy-sensors-pick', function () {
      var wanted = splitIds($filter.val());
      var id = $(this).val();
      var at = wanted.indexOf(id);
      if ($(this).prop('checked') && at < 0) wanted.push(id);
      if (!$(this).prop('checked') && at >= 0) wanted.splice(at, 1);
      $filter.val(wanted.join(', '));
    });
    $filter.on('input change', syncTicks);
    $gateway.on('input', function () {
      later(500);
    });
    $gateway.on('change', function () {
      later(0);
    });
    $account.on('change', function () {
      suggestions();
      later(0);
    });
  };
})();
