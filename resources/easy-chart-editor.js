/*
 * The week's price chart of the easy-tariff and easy-plan dialogs (easy-plan adds its
 * planned slots), drawn by the tariff dropdown of easy-tariff-editor.js. Uses the
 * shared functions of easy-editor.js (window.EasyEditor), loaded beside it.
 */
(function () {
  'use strict';
  // Node-RED loads a node's scripts side by side, in whatever order they arrive: the object
  // is made by whichever runs first, the shared functions are looked up when called
  var E = (window.EasyEditor = window.EasyEditor || {});
  if (E.renderChart) return;
  function t(key, subs) {
    return E.t(key, subs);
  }
  function tn(key, count, subs) {
    return E.tn(key, count, subs);
  }

  var SVG = 'http://www.w3.org/2000/svg';
  function priceText(x) {
    return E.priceText(x);
  }

  function svg(name, attrs, parent) {
    var el = document.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(function (k) {
      el.setAttribute(k, attrs[k]);
    });
    if (parent) parent.appendChild(el);
    return el;
  }

  function lineLabel(line) {
    // a prices node's stack: the stacked price, then its parts
    if (line.key === 'spot' || line.key === 'fees') return t('chart.' + line.key);
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
    /** The narrowest a planned slot is drawn, in the chart's units (560 across). */
    var PLANNED_MIN_PX = 4;
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
      // easy-plan: the slots it would plan now, as a shaded column over the plot and a band
      // along its bottom; over 7 days an hour is ~3 px, so a slot is drawn at least
      // PLANNED_MIN_PX wide (centred on it) to be seen as a block, not a hairline
      data.plan.slots.forEach(function (p) {
        var width = Math.max(PLANNED_MIN_PX, x(p.to) - x(p.from));
        var left = Math.max(L, (x(p.from) + x(p.to)) / 2 - width / 2);
        svg(
          'rect',
          { class: 'easy-chart-planned-area', x: left, y: T, width: width, height: H - T - B, fill: 'rgba(39, 174, 96, 0.16)' },
          root,
        );
        svg('rect', { class: 'easy-chart-planned', x: left, y: H - B - 8, width: width, height: 8, fill: '#27ae60' }, root);
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
      var planText = data.plan.error ? t('chart.planError', { error: data.plan.error }) : tn('chart.planned', data.plan.slots.length);
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
})();
