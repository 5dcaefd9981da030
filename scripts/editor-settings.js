'use strict';
// The Node-RED settings that make the editor land on the flows and call nothing outside
// this machine: no telemetry consent or update-notification dialog, no tours, no
// projects, no palette catalogue, no module installs. Shared by the demo (npm start) and
// the browser e2e, which asserts what the first screen shows.
module.exports = Object.freeze({
  telemetry: { enabled: false, updateNotification: false },
  diagnostics: { enabled: false },
  editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
  externalModules: { autoInstall: false, palette: { allowInstall: false } },
});
