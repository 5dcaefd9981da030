/*
 * The easy-plan dialog's own part: what the settings as typed mean before anything is
 * planned — a run time longer than the window (the whole window runs), a run time of 0
 * (nothing runs), a minimum block longer than the run time, values that are not whole
 * seconds, an on/off value that is not valid JSON, a resend interval out of range — each
 * marked on its field and said in words under the settings. Words from easy-account's
 * catalogue (easy-account.editor.plan.*).
 */
(function () {
  'use strict';
  // Node-RED loads a node's scripts side by side, in whatever order they arrive: the object
  // is made by whichever runs first, the shared functions are looked up when called
  var E = (window.EasyEditor = window.EasyEditor || {});
  if (E.planChecks) return;
  function t(key, subs) {
    return E.t(key, subs);
  }
  var HOUR = 3600000;
  var MINUTE = 60000;
  var DAY = 24 * HOUR;

  function num(v) {
    var s = String(v === undefined || v === null ? '' : v).trim();
    return s === '' ? 0 : Number(s);
  }
  function clock(v) {
    var m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(String(v || '').trim());
    return m ? Number(m[1]) * HOUR + Number(m[2]) * MINUTE : null;
  }
  /** `9 h`, `2 h 30 min`, `45 min`, as the node says it. */
  function hoursText(ms) {
    var sec = Math.round(ms / 1000);
    var h = Math.floor(sec / 3600);
    var min = Math.floor((sec % 3600) / 60);
    var s = sec % 60;
    var parts = [];
    if (h) parts.push(h + ' h');
    if (min) parts.push(min + ' min');
    if (s || !parts.length) parts.push(s + ' s');
    return parts.join(' ');
  }
  E.planHoursText = hoursText;

  /** The window's length on an ordinary day, or null when its times are not valid. */
  function windowLength(v) {
    if (v.mode === 'rolling') {
      var hours = num(v.hours);
      return isFinite(hours) && hours >= 1 && hours <= 192 ? hours * HOUR : null;
    }
    var from = clock(v.from);
    var until = clock(v.until);
    if (from === null || until === null) return null;
    return until > from ? until - from : until + DAY - from;
  }

  function jsonProblem(type, value) {
    if (type !== 'json') return null;
    try {
      JSON.parse(String(value));
      return null;
    } catch (err) {
      return String(err && err.message ? err.message : err);
    }
  }

  /** As the node: a length must be whole seconds, and one under a millisecond is a mistake, not zero. */
  function notWholeSeconds(ms) {
    var rounded = Math.round(ms);
    return rounded % 1000 !== 0 || (rounded === 0 && ms !== 0);
  }

  /**
   * What the settings as typed mean, in words: [{ field, level: 'error' | 'warning' |
   * 'note', text }]. An error is a setting the node would refuse; a warning one it runs
   * differently from what the numbers say.
   */
  E.planChecks = function (v) {
    var out = [];
    function add(field, level, key, subs) {
      out.push({ field: field, level: level, text: t('plan.' + key, subs) });
    }
    if (v.strategy === 'save') {
      // no run time: the load is on in the window, off where that saves most
      var maxOff =
        String(v.maxOffMinutes === undefined || v.maxOffMinutes === null ? '' : v.maxOffMinutes).trim() === '' ? 60 : num(v.maxOffMinutes);
      var minOff =
        String(v.minOffMinutes === undefined || v.minOffMinutes === null ? '' : v.minOffMinutes).trim() === '' ? 0 : num(v.minOffMinutes);
      if (!(maxOff > 0 && maxOff <= 1440)) add('maxOffMinutes', 'error', 'maxOff');
      else if (!(minOff >= 0 && minOff <= 1440 && minOff <= maxOff) || notWholeSeconds(minOff * MINUTE))
        add('minOffMinutes', 'error', 'minOff', { max: String(maxOff) });
      else add('strategy', 'note', 'offPeriods');
      checkValues(v, add);
      return out;
    }
    var duration = num(v.durationHours) * HOUR + num(v.durationMinutes) * MINUTE;
    if (!isFinite(duration) || duration < 0) return out; // the fields' own validation says it
    var length = windowLength(v);
    if (notWholeSeconds(duration)) add('durationHours', 'error', 'wholeSeconds', { what: t('plan.duration') });
    else if (duration === 0) add('durationHours', 'note', 'zero');
    else if (length !== null && duration > length)
      add('durationHours', 'warning', 'longerThanWindow', { duration: hoursText(duration), window: hoursText(length) });
    var contiguous = v.contiguous === true || v.contiguous === 'true';
    if (!contiguous) {
      var minBlock = num(v.minBlockHours) * HOUR + num(v.minBlockMinutes) * MINUTE;
      if (isFinite(minBlock) && minBlock > 0) {
        if (notWholeSeconds(minBlock)) add('minBlockHours', 'error', 'wholeSeconds', { what: t('plan.minBlock') });
        else if (duration > 0 && minBlock > duration)
          add('minBlockHours', 'error', 'blockLongerThanRun', { block: hoursText(minBlock), duration: hoursText(duration) });
      }
    }
    checkValues(v, add);
    return out;
  };

  /** The output values and the resend interval, whatever the strategy. */
  function checkValues(v, add) {
    [
      ['onValue', v.onType, v.onValue],
      ['offValue', v.offType, v.offValue],
      ['outsideValue', v.outsideType, v.outsideValue],
    ].forEach(function (f) {
      var problem = jsonProblem(f[1], f[2]);
      if (problem) add(f[0], 'error', 'badJson', { error: problem });
    });
    var resend = num(v.resendMinutes);
    if (!(resend >= 0 && resend <= 1440 && Math.floor(resend) === resend)) add('resendMinutes', 'error', 'resend');
  }

  /**
   * Shows the checks of `opts.values()` in `opts.list` and marks their fields (the ids
   * `node-input-<field>`) whenever one of `opts.fields` changes.
   */
  E.planDialog = function (opts) {
    var $list = $(opts.list);
    function show() {
      var checks = E.planChecks(opts.values());
      $('.easy-plan-marked').removeClass('input-error easy-plan-marked');
      $list.empty();
      checks.forEach(function (c) {
        if (c.level === 'error') $('#node-input-' + c.field).addClass('input-error easy-plan-marked');
        $('<div>')
          .addClass('easy-state-' + (c.level === 'note' ? 'ok' : c.level))
          .attr('data-field', c.field)
          .attr('data-level', c.level)
          .text(c.text)
          .appendTo($list);
      });
    }
    $(opts.fields).on('change input', show);
    show();
    return show;
  };
})();
