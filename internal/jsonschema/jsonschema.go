// Package jsonschema validates JSON documents against the subset of JSON
// Schema (draft 2020-12) that lifted's schemas use: type (a name or a
// list), const, enum, required, properties, additionalProperties (a
// boolean or a schema), items, anyOf, oneOf, minimum, maximum and local
// references "#/$defs/NAME". Other keywords are an error, so that a schema
// cannot silently rely on one the validator ignores.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// Schema is a compiled schema.
type Schema struct {
	root map[string]any
}

var known = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$ref": true, "title": true, "description": true,
	"type": true, "const": true, "enum": true, "required": true, "properties": true,
	"additionalProperties": true, "items": true, "anyOf": true, "oneOf": true,
	"minimum": true, "maximum": true,
}

// Compile parses a schema and checks that it uses only the keywords this
// package implements.
func Compile(data []byte) (*Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	s := &Schema{root: root}
	if err := s.check(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

// check walks a schema for unknown keywords and unresolved references.
func (s *Schema) check(node any, at string) error {
	sch, ok := node.(map[string]any)
	if !ok {
		if _, isBool := node.(bool); isBool {
			return nil
		}
		return fmt.Errorf("jsonschema: %s: a schema must be an object or a boolean", at)
	}
	for k, v := range sch {
		if !known[k] {
			return fmt.Errorf("jsonschema: %s: keyword %q is not implemented", at, k)
		}
		switch k {
		case "$ref":
			if _, err := s.resolve(v); err != nil {
				return fmt.Errorf("jsonschema: %s: %w", at, err)
			}
		case "$defs", "properties":
			for name, sub := range v.(map[string]any) {
				if err := s.check(sub, at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items", "additionalProperties":
			if err := s.check(v, at+"/"+k); err != nil {
				return err
			}
		case "anyOf", "oneOf":
			for i, sub := range v.([]any) {
				if err := s.check(sub, fmt.Sprintf("%s/%s/%d", at, k, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *Schema) resolve(ref any) (any, error) {
	r, _ := ref.(string)
	name, ok := strings.CutPrefix(r, "#/$defs/")
	if !ok {
		return nil, fmt.Errorf("reference %q: only #/$defs/NAME is implemented", r)
	}
	defs, _ := s.root["$defs"].(map[string]any)
	d, ok := defs[name]
	if !ok {
		return nil, fmt.Errorf("reference %q: no such definition", r)
	}
	return d, nil
}

// Validate checks a JSON document against the schema; the error names the
// first place that does not conform.
func (s *Schema) Validate(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return s.validate(s.root, v, "$")
}

// ValidateDef checks a JSON document against the definition
// "#/$defs/NAME" of the schema.
func (s *Schema) ValidateDef(name string, doc []byte) error {
	d, err := s.resolve("#/$defs/" + name)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.validate(d, v, "$")
}

func (s *Schema) validate(node any, v any, at string) error {
	if b, ok := node.(bool); ok {
		if !b {
			return fmt.Errorf("%s: not allowed", at)
		}
		return nil
	}
	sch := node.(map[string]any)
	if ref, ok := sch["$ref"]; ok {
		d, err := s.resolve(ref)
		if err != nil {
			return err
		}
		if err := s.validate(d, v, at); err != nil {
			return err
		}
	}
	if t, ok := sch["type"]; ok {
		var names []string
		switch t := t.(type) {
		case string:
			names = []string{t}
		case []any:
			for _, x := range t {
				names = append(names, x.(string))
			}
		}
		match := false
		for _, n := range names {
			if hasType(v, n) {
				match = true
			}
		}
		if !match {
			return fmt.Errorf("%s: %s is not of type %s", at, short(v), strings.Join(names, " or "))
		}
	}
	if c, ok := sch["const"]; ok && !equal(c, v) {
		return fmt.Errorf("%s: %s is not %v", at, short(v), c)
	}
	if e, ok := sch["enum"]; ok {
		found := false
		for _, x := range e.([]any) {
			if equal(x, v) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s: %s is not one of %v", at, short(v), e)
		}
	}
	if n, ok := v.(json.Number); ok {
		x, _ := n.Float64()
		if m, ok := sch["minimum"].(float64); ok && x < m {
			return fmt.Errorf("%s: %v < minimum %v", at, x, m)
		}
		if m, ok := sch["maximum"].(float64); ok && x > m {
			return fmt.Errorf("%s: %v > maximum %v", at, x, m)
		}
	}
	if obj, ok := v.(map[string]any); ok {
		if req, ok := sch["required"].([]any); ok {
			for _, k := range req {
				if _, ok := obj[k.(string)]; !ok {
					return fmt.Errorf("%s: required key %q is missing", at, k)
				}
			}
		}
		props, _ := sch["properties"].(map[string]any)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, ok := props[k]
			if !ok {
				sub, ok = sch["additionalProperties"]
			}
			if ok {
				if err := s.validate(sub, obj[k], at+"."+k); err != nil {
					return err
				}
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if items, ok := sch["items"]; ok {
			for i, x := range arr {
				if err := s.validate(items, x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	if subs, ok := sch["anyOf"].([]any); ok {
		var errs []string
		for _, sub := range subs {
			err := s.validate(sub, v, at)
			if err == nil {
				errs = nil
				break
			}
			errs = append(errs, err.Error())
		}
		if errs != nil {
			return fmt.Errorf("%s: matches none of anyOf: %s", at, strings.Join(errs, "; "))
		}
	}
	if subs, ok := sch["oneOf"].([]any); ok {
		n := 0
		var errs []string
		for _, sub := range subs {
			if err := s.validate(sub, v, at); err == nil {
				n++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: matches %d of oneOf, want 1 (%s)", at, n, strings.Join(errs, "; "))
		}
	}
	return nil
}

// hasType reports whether v is of the JSON Schema type name.
func hasType(v any, name string) bool {
	switch name {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		x, err := n.Float64()
		return err == nil && x == math.Trunc(x)
	}
	return false
}

// equal compares a schema value (numbers as float64) with a document
// value (numbers as json.Number).
func equal(schema, v any) bool {
	if n, ok := v.(json.Number); ok {
		x, _ := n.Float64()
		y, ok := schema.(float64)
		return ok && x == y
	}
	return reflect.DeepEqual(schema, v)
}

// short prints a value for an error message, cut at 60 bytes.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
