package pdk

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
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
	t := s.Type()
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
		raw, ok := c.host.Config(name)
		if !ok {
			continue
		}
		fv := s.Field(i)
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
			return fmt.Errorf("pdk: plugin config %q: %w", name, err)
		}
	}
	return nil
}
