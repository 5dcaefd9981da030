/*
 * easy-sensors' dialog: the gateway's sensors as a table with a tick each, in step with
 * the node's sensor filter, and the gateway suggestions. Uses the shared functions of
 * easy-editor.js (window.EasyEditor), loaded beside it.
 */
(function () {
  'use strict';
  // Node-RED loads a node's scripts side by side, in whatever order they arrive: the object
  // is made by whichever runs first, the shared functions are looked up when called
  var E = (window.EasyEditor = window.EasyEditor || {});
  if (E.sensorsPicker) return;
  function t(key, subs) {
    return E.t(key, subs);
  }
  function tn(key, count, subs) {
    return E.tn(key, count, subs);
  }
  function setStatus() {
    return E.setStatus.apply(null, arguments);
  }

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
          setStatus($status, 'ok', tn('sensors.loaded', (res.sensors || []).length, { gateway: gateway }));
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
