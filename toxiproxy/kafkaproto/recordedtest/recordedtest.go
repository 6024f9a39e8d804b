// Package recordedtest loads the request and response frames recorded from real clients and
// brokers (kafkaproto/testdata/recorded.json), for the tests of kafkaproto and kafkatoxic.
package recordedtest

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Exchange is one request frame and its response, as recorded.
type Exchange struct {
	Client   string `json:"client"` // librdkafka or java
	ClientID string `json:"client_id"`
	API      string `json:"api"`
	Version  int16  `json:"version"`
	Request  []byte `json:"-"`
	Response []byte `json:"-"`
}

// Load reads every recorded exchange.
func Load(t testing.TB) []Exchange {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", "recorded.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Frames []struct {
			Exchange
			Request  string `json:"request"`
			Response string `json:"response"`
		} `json:"frames"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	exchanges := make([]Exchange, 0, len(file.Frames))
	for _, f := range file.Frames {
		e := f.Exchange
		if e.Request, err = hex.DecodeString(f.Request); err != nil {
			t.Fatal(err)
		}
		if e.Response, err = hex.DecodeString(f.Response); err != nil {
			t.Fatal(err)
		}
		exchanges = append(exchanges, e)
	}
	if len(exchanges) < 20 {
		t.Fatalf("only %d recorded exchanges", len(exchanges))
	}
	return exchanges
}

// Find is the recorded exchange of a client, API and version (the test fails if none).
func Find(t testing.TB, client, api string, version int16) Exchange {
	t.Helper()
	for _, e := range Load(t) {
		if e.Client == client && e.API == api && e.Version == version {
			return e
		}
	}
	t.Fatalf("no recorded %s %s v%d", client, api, version)
	return Exchange{}
}
