package jsonschema

import (
	"strings"
	"testing"
)

const testSchema = `{
  "type": "object",
  "required": ["v", "x"],
  "additionalProperties": false,
  "properties": {
    "v": {"const": 1},
    "x": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
    "k": {"enum": ["a", "b"]},
    "n": {"type": "integer"},
    "m": {"anyOf": [{"type": "null"}, {"type": "object", "additionalProperties": {"type": "number"}}]},
    "o": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    "s": {"type": "array", "items": {"$ref": "#/$defs/pos"}}
  },
  "$defs": {"pos": {"type": "integer", "minimum": 0}}
}`

func TestValidate(t *testing.T) {
	s, err := Compile([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	good := []string{
		`{"v":1,"x":0.5}`,
		`{"v":1,"x":null,"k":"b","n":3,"m":{"A":1,"B":0.25},"s":[0,1,2]}`,
		`{"v":1,"x":1,"m":null,"o":1.5}`,
	}
	for _, d := range good {
		if err := s.Validate([]byte(d)); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	bad := map[string]string{
		`{"v":1}`:                     `required key "x"`,
		`{"v":2,"x":0}`:               "is not 1",
		`{"v":1,"x":"a"}`:             "not of type number or null",
		`{"v":1,"x":1.5}`:             "maximum",
		`{"v":1,"x":-1}`:              "minimum",
		`{"v":1,"x":0,"k":"c"}`:       "not one of",
		`{"v":1,"x":0,"n":1.5}`:       "not of type integer",
		`{"v":1,"x":0,"y":1}`:         "$.y: not allowed",
		`{"v":1,"x":0,"m":{"A":"p"}}`: "none of anyOf",
		`{"v":1,"x":0,"o":2}`:         "matches 2 of oneOf",
		`{"v":1,"x":0,"s":[0,-1]}`:    "$.s[1]: -1 < minimum",
		`{"v":1,"x":0} {}`:            "more than one",
		`[1`:                          "not JSON",
	}
	for d, want := range bad {
		err := s.Validate([]byte(d))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", d, err, want)
		}
	}
	if err := s.ValidateDef("pos", []byte(`-3`)); err == nil {
		t.Error("ValidateDef accepted -3 for a non-negative integer")
	}
}

// A keyword the validator does not implement is an error at Compile, not
// silently ignored.
func TestCompileUnknownKeyword(t *testing.T) {
	for _, s := range []string{`{"pattern": "^a"}`, `{"properties": {"a": {"if": {}}}}`, `{"$ref": "other.json"}`, `{"$ref": "#/$defs/none"}`} {
		if _, err := Compile([]byte(s)); err == nil {
			t.Errorf("%s compiled", s)
		}
	}
}
