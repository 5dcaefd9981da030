/*
 * easy-peak's dialog: this month's peaks of one meter, read from the archive through the
 * account and counted with the settings as typed (POST /easy-account/peaks), shown before a
 * deploy. Uses the shared functions of easy-editor.js (window.EasyEditor), loaded beside it.
 */
(function () {
  'use strict';
  // Node-RED loads a node's scripts side by side, in whatever order they arrive: the object
  // is made by whichever runs first, the shared functions are looked up when called
  var E = (window.EasyEditor = window.EasyEditor || {});
  if (E.peakPreview) return;

  /** A peak as a line: its local start in the browser's words and its kW. */
  function peakLine(p) {
    return E.t('peak.peak', { from: new Date(p.fromMs).toLocaleString(), kw: Number(p.kw).toFixed(2) });
  }

  E.peakPreview = function (opts) {
    var $out = $(opts.out);
    $(opts.button).on('click', function () {
      var body = E.accountBody($(opts.account).val());
      if (!body) {
        E.setStatus($out, 'warning', E.t('peak.noAccount'));
        return;
      }
      body.gateway = String($(opts.gateway).val() || '').trim();
      body.sensor = String($(opts.sensor).val() || '').trim();
      body.settings = opts.settings();
      if (!body.gateway) {
        E.setStatus($out, 'warning', E.t('peak.noGateway'));
        return;
      }
      E.setStatus($out, 'loading', E.t('peak.loading'));
      E.post('easy-account/peaks', body).then(
        function (answer) {
          var month = answer.month;
          if (!month.peaks.length) {
            E.setStatus($out, 'warning', E.tn('peak.none', answer.windows, { complete: answer.complete }));
            return;
          }
          E.setStatus($out, 'ok', E.t('peak.value', { value: Number(month.value).toFixed(2), count: month.peaks.length }));
          // each peak on a line of its own, as text
          month.peaks.forEach(function (p) {
            $('<div>').text(peakLine(p)).appendTo($out);
          });
        },
        function (err) {
          E.setStatus($out, 'error', E.errorText(err));
        },
      );
    });
  };
})();
