// JSON-RPC messages as the bridge sees them: one object per HTTP body or stdio line, its top-level
// members kept as raw bytes so everything but what the bridge rewrites (the id, a progress token)
// travels unchanged in value. Encoding is compact (one line, as stdio framing needs) and never
// escapes HTML characters.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
)

type kind int

const (
	kindRequest kind = iota
	kindNotification
	kindResponse
)

// JSON-RPC error codes the bridge answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInternalError  = -32603
)

var (
	errNotJSON  = errors.New("not a JSON object")
	errBatch    = errors.New("JSON-RPC batches are not supported")
	errNotJSONR = errors.New("not a JSON-RPC 2.0 message")
)

type message struct {
	fields map[string]json.RawMessage
	kind   kind
	method string
	// id is the raw, compacted id of a request or response (a JSON string or number).
	id json.RawMessage
}

// parseMessage reads one JSON-RPC 2.0 message. Batches are refused (MCP 2025-06-18 dropped them).
func parseMessage(data []byte) (*message, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, errBatch
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, errNotJSON
	}
	if v, ok := fields["jsonrpc"]; !ok || string(compact(v)) != `"2.0"` {
		return nil, errNotJSONR
	}
	m := &message{fields: fields}
	rawMethod, hasMethod := fields["method"]
	rawID, hasID := fields["id"]
	if hasID {
		if !validID(rawID) {
			return nil, errNotJSONR
		}
		m.id = compact(rawID)
	}
	switch {
	case hasMethod:
		if err := json.Unmarshal(rawMethod, &m.method); err != nil {
			return nil, errNotJSONR
		}
		m.kind = kindNotification
		if hasID {
			m.kind = kindRequest
		}
	case hasID && (fields["result"] != nil || fields["error"] != nil):
		m.kind = kindResponse
	default:
		return nil, errNotJSONR
	}
	return m, nil
}

// validID accepts what MCP allows as a request id: a string or a number (never null).
func validID(raw json.RawMessage) bool {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	switch v.(type) {
	case string, json.Number:
		return true
	}
	return false
}

func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}

// encodeFields writes a message as one compact line (without the newline).
func encodeFields(fields map[string]json.RawMessage) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Every value is a RawMessage that parsed as JSON, so encoding cannot fail.
	_ = enc.Encode(fields)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// errorResponse is a JSON-RPC error with the given id (raw; null when unknown).
func errorResponse(id json.RawMessage, code int, text string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{"code": code, "message": text})
	return encodeFields(map[string]json.RawMessage{
		"jsonrpc": json.RawMessage(`"2.0"`),
		"id":      id,
		"error":   body,
	})
}

// progressToken returns params._meta.progressToken of a request, if it carries one.
func (m *message) progressToken() (json.RawMessage, bool) {
	meta, ok := m.meta()
	if !ok {
		return nil, false
	}
	token, ok := meta["progressToken"]
	if !ok || !validID(token) {
		return nil, false
	}
	return compact(token), true
}

// statelessEra says whether the request names its protocol revision itself (2026-07-28 puts it in
// params._meta): such a request needs no initialize before it, and a server that speaks that
// revision must not be pinned to an older one by the bridge's own initialize.
func (m *message) statelessEra() bool {
	meta, ok := m.meta()
	if !ok {
		return false
	}
	_, named := meta["io.modelcontextprotocol/protocolVersion"]
	return named
}

func (m *message) meta() (map[string]json.RawMessage, bool) {
	var params map[string]json.RawMessage
	if json.Unmarshal(m.fields["params"], &params) != nil || params == nil {
		return nil, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil || meta == nil {
		return nil, false
	}
	return meta, true
}

// setProgressToken replaces params._meta.progressToken (which the caller checked is there).
func (m *message) setProgressToken(token json.RawMessage) {
	var params map[string]json.RawMessage
	_ = json.Unmarshal(m.fields["params"], &params)
	meta, _ := m.meta()
	meta["progressToken"] = token
	params["_meta"] = encodeFields(meta)
	m.fields["params"] = encodeFields(params)
}
