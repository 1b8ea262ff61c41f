package engine

import _ "embed"

// ResultSchema is the JSON Schema (draft 2020-12) of the JSON that
// WriteJSON writes and every lifted command prints with --output-format
// json; its schema_version is SchemaVersion. The file is
// engine/result.schema.json.
//
//go:embed result.schema.json
var ResultSchema []byte
