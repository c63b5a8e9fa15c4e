// Package config reads airlock.yaml: the plugins and remote hosts that supply
// interceptors, the invoker's overrides, the gateway's backend, listen
// addresses, logging and metrics.
//
// A file is validated whole, against the JSON Schema the project ships
// (airlock.schema.json, embedded), before anything starts. Every problem is
// reported with the file, the line and column, and the field, so a bad edit
// is found without reading the schema.
package config
