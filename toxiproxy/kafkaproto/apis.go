// Package kafkaproto reads the Kafka wire protocol as far as the protocol faults need it:
// frames, request and response headers, and the leading fields of the requests and
// responses that apis.json describes. It never allocates per byte and never fails a stream:
// what it cannot read, the toxics pass through untouched.
package kafkaproto

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The one table of API keys, flexible versions and leading fields; the harness's Python side
// reads the same file (harness/faults/kinds/protocol.py) to check a fault before it is sent.
//
//go:embed apis.json
var apisJSON []byte

// Versions is a range of API versions: "3+" (3 and up) or "0-3".
type Versions struct {
	From, To int16 // To < 0: no upper bound
}

func (v Versions) Has(version int16) bool {
	return version >= v.From && (v.To < 0 || version <= v.To)
}

func parseVersions(text string) (Versions, error) {
	if from, ok := strings.CutSuffix(text, "+"); ok {
		n, err := strconv.Atoi(from)
		return Versions{int16(n), -1}, err
	}
	from, to, ok := strings.Cut(text, "-")
	if !ok {
		n, err := strconv.Atoi(text)
		return Versions{int16(n), int16(n)}, err
	}
	a, err := strconv.Atoi(from)
	if err != nil {
		return Versions{}, err
	}
	b, err := strconv.Atoi(to)
	return Versions{int16(a), int16(b)}, err
}

// Field is one leading field of a request or response body, present in some versions.
type Field struct {
	Name     string
	Type     string // int8, int16, int32, int64, bool, string, nullable_string
	Versions Versions
}

func (f *Field) UnmarshalJSON(data []byte) error {
	var parts [3]string
	if err := json.Unmarshal(data, &parts); err != nil {
		return err
	}
	versions, err := parseVersions(parts[2])
	if err != nil {
		return fmt.Errorf("field %s: versions %q: %w", parts[0], parts[2], err)
	}
	*f = Field{parts[0], parts[1], versions}
	return nil
}

// API is one Kafka API as the table describes it.
type API struct {
	Key              int16   `json:"key"`
	Name             string  `json:"name"`
	FlexibleFrom     *int16  `json:"flexible_from"` // nil: never flexible
	Request          []Field `json:"request"`
	Response         []Field `json:"response"`
	ResponseHeaderV0 bool    `json:"response_header_v0"` // ApiVersions answers with a v0 header always
}

// Flexible says whether version uses compact strings and tagged fields.
func (a *API) Flexible(version int16) bool {
	return a.FlexibleFrom != nil && version >= *a.FlexibleFrom
}

var (
	byKey  = map[int16]*API{}
	byName = map[string]*API{}
)

func init() {
	var table struct {
		APIs []*API `json:"apis"`
	}
	if err := json.Unmarshal(apisJSON, &table); err != nil {
		panic(fmt.Sprintf("kafkaproto: apis.json: %v", err))
	}
	for _, api := range table.APIs {
		byKey[api.Key] = api
		byName[api.Name] = api
	}
}

// Lookup finds an API by its name as Kafka spells it ("EndTxn").
func Lookup(name string) (*API, bool) {
	api, ok := byName[name]
	return api, ok
}

// ByKey finds an API by its key; unknown keys (newer than the table) give nil.
func ByKey(key int16) *API {
	return byKey[key]
}

// Name is an API key's name, or "ApiKey<n>" for a key the table does not know.
func Name(key int16) string {
	if api := byKey[key]; api != nil {
		return api.Name
	}
	return fmt.Sprintf("ApiKey%d", key)
}
