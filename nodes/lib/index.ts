// The package's `main`: the engine and the client, free of Node-RED, usable from
// function nodes (see README "Library API").
export {};
