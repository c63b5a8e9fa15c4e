package pdk

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/pdk/internal/hostapi"
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// RawConfig is the call's own config object (interceptor/invoke "config"),
// or nil.
func (c *Call) RawConfig() json.RawMessage { return c.inv.config }

// PluginConfig returns the plugin-wide configuration value of key: what the
// host's operator set for this plugin (wasm.Options.Config; Extism
// config_get). It does not change during the plugin's life.
func (c *Call) PluginConfig(key string) (string, bool) { return c.host.Config(key) }

// Config fills v, a pointer to a struct, in two layers:
//
//  1. plugin configuration: for each field, the plugin config value under
//     the field's JSON name, read as JSON ("[\"a\",\"b\"]", "42", "true",
//     "{...}"), or, for a string field, as the plain string ("warn");
//  2. the call's own config object, decoded over it with encoding/json, so
//     that a field present in the call wins.
//
// Fields set in neither keep the values v already has: set defaults before
// calling. An error names the offending key; handlers usually Fail with it.
func (c *Call) Config(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("pdk: Config needs a non-nil pointer, got %T", v)
	}
	if s := rv.Elem(); s.Kind() == reflect.Struct {
		if err := c.pluginLayer(s); err != nil {
			return err
		}
	}
	if len(c.inv.config) > 0 && string(c.inv.config) != "null" {
		if err := json.Unmarshal(c.inv.config, v); err != nil {
			return fmt.Errorf("pdk: interceptor %q: call config: %w", c.inv.name, err)
		}
	}
	return nil
}

func (c *Call) pluginLayer(s reflect.Value) error {
	for _, f := range c.configFields(s.Type()) {
		fv := s.Field(f.index)
		raw := f.raw
		if fv.Kind() == reflect.String && !fv.Addr().Type().Implements(unmarshalerType) {
			// What encoding/json would do, without reflection: a JSON
			// string is decoded, null leaves the field alone, anything
			// else is taken as the plain string.
			if start, end, err := jsonscan.Value([]byte(raw)); err != nil || (raw[start] != '"' && raw[start] != 'n') {
				fv.SetString(raw)
			} else if raw[start] == '"' {
				fv.SetString(jsonscan.Unquote([]byte(raw[start:end])))
			}
			continue
		}
		if err := json.Unmarshal([]byte(raw), fv.Addr().Interface()); err != nil {
			if fv.Kind() == reflect.String {
				fv.SetString(raw)
				continue
			}
			return fmt.Errorf("pdk: plugin config %q: %w", f.name, err)
		}
	}
	return nil
}

// configField is a field of a config struct that the plugin configuration
// sets, with the raw value it sets.
type configField struct {
	index     int
	name, raw string
}

// fixedConfigFields caches configFields per struct type for a host whose
// configuration never changes: inside WebAssembly, walking a struct's
// fields and tags and asking the host for each name costs microseconds per
// call, and almost always finds nothing.
var fixedConfigFields sync.Map // reflect.Type -> []configField

// configFields returns the fields of the struct type t that the plugin
// configuration sets.
func (c *Call) configFields(t reflect.Type) []configField {
	_, fixed := c.host.(hostapi.FixedConfig)
	if fixed {
		if fs, ok := fixedConfigFields.Load(t); ok {
			return fs.([]configField)
		}
	}
	var fs []configField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		if raw, ok := c.host.Config(name); ok {
			fs = append(fs, configField{index: i, name: name, raw: raw})
		}
	}
	if fixed {
		fixedConfigFields.Store(t, fs)
	}
	return fs
}
