// Package spec holds the wire types of the MCP interceptors extension
// (SEP-2624) as Airlock implements it: the Interceptor descriptor and its hooks,
// the three result kinds, the interceptors/list and interceptor/invoke
// parameters and results, chain results, the capability, and the JSON-RPC
// errors with their data.
//
// The package depends on nothing but the standard library so that every other
// part of Airlock (host, PDK, CLI) and third-party code can share it. Its JSON
// behaviour is exact: defaults are omitted, priorityHint keeps the form it was
// given, and results decode by their "type" discriminator. README.md in this
// folder lists every place where the project departs from the public drafts.
package spec
