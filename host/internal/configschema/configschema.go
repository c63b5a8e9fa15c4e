// Package configschema checks per-call interceptor config against the JSON
// Schema an interceptor declares in its descriptor.
package configschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled configSchema. It is safe for concurrent use.
type Schema struct{ s *jsonschema.Schema }

// noLoader refuses every external reference: a schema comes from a plugin,
// and a "$ref" must not make the host read a file or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not allowed in a configSchema", url)
}

// Compile compiles a configSchema. An empty schema compiles to nil, which
// accepts everything.
func Compile(raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("configSchema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "airlock:///configSchema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("configSchema: %w", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("configSchema does not compile: %w", err)
	}
	return &Schema{s}, nil
}

// Validate checks config against the schema. A nil schema or an absent
// config passes: with no config, the interceptor uses its defaults.
func (s *Schema) Validate(config json.RawMessage) error {
	if s == nil || len(bytes.TrimSpace(config)) == 0 {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(config))
	if err != nil {
		return fmt.Errorf("config is not JSON: %w", err)
	}
	if err := s.s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return errors.New(describe(ve))
		}
		return err
	}
	return nil
}

// describe renders a validation error as one line per leaf cause, each with
// the config path ("config.limit: ...").
func describe(ve *jsonschema.ValidationError) string {
	var lines []string
	printer := message.NewPrinter(language.English)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			path := "config"
			for _, p := range e.InstanceLocation {
				path += "." + p
			}
			lines = append(lines, path+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(lines, "; ")
}
