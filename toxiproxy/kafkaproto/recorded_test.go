package kafkaproto

import (
	"slices"
	"strings"
	"testing"

	"kafka-eos-harness/toxiproxy/kafkaproto/recordedtest"
)

func TestRecordedRequestHeaders(t *testing.T) {
	for _, r := range recordedtest.Load(t) {
		request := r.Request
		h, err := ParseRequestHeader(request)
		if err != nil {
			t.Fatalf("%s %s v%d: %v", r.Client, r.API, r.Version, err)
		}
		if h.API == nil || h.API.Name != r.API || h.Version != r.Version || h.ClientID != r.ClientID || !h.Plausible() {
			t.Errorf("%s %s v%d: read as %s v%d client %q", r.Client, r.API, r.Version, Name(h.Key), h.Version, h.ClientID)
		}
		if FrameSize(request) != len(request) {
			t.Errorf("%s %s: frame size %d, recorded %d bytes", r.Client, r.API, FrameSize(request), len(request))
		}
	}
}

// The transactional requests name their transactional.id first: the filter reads it on every
// version the clients send, flexible (compact strings) or not.
func TestRecordedTransactionalIDs(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range recordedtest.Load(t) {
		request := r.Request
		h, _ := ParseRequestHeader(request)
		fields := RequestFields(h, request)
		id, named := fields["transactional_id"].(string)
		switch r.API {
		case "EndTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "AddPartitionsToTxn":
			if !named || id == "" {
				t.Errorf("%s %s v%d: no transactional.id read: %v", r.Client, r.API, r.Version, fields)
			}
			seen[r.API] = true
		}
		if r.API == "EndTxn" {
			if _, ok := fields["committed"].(bool); !ok {
				t.Errorf("%s EndTxn v%d: commit/abort not read: %v", r.Client, r.Version, fields)
			}
		}
		if r.API == "TxnOffsetCommit" || r.API == "AddOffsetsToTxn" {
			if group, _ := fields["group_id"].(string); group == "" {
				t.Errorf("%s %s v%d: no group id read: %v", r.Client, r.API, r.Version, fields)
			}
		}
	}
	if len(seen) < 4 {
		t.Errorf("recorded transactional APIs: %v", seen)
	}
}

func TestRecordedResponsesAnswerTheirRequests(t *testing.T) {
	for _, r := range recordedtest.Load(t) {
		request, response := r.Request, r.Response
		if Correlation(request, RequestCorrelationAt) != Correlation(response, ResponseCorrelationAt) {
			t.Errorf("%s %s v%d: correlation ids differ", r.Client, r.API, r.Version)
		}
	}
}

// Where the error code sits depends on the response header version (tagged fields in flexible
// versions, never for ApiVersions) and on the leading fields. The recorded commits succeeded
// (code 0); the others hold codes the brokers really gave (MEMBER_ID_REQUIRED on a first
// JoinGroup, COORDINATOR_LOAD_IN_PROGRESS on an early InitProducerId); a rewritten code is read back.
func TestResponseErrorCodes(t *testing.T) {
	want := map[string][]int16{
		"EndTxn": {0}, "AddOffsetsToTxn": {0}, "FindCoordinator": {0}, "Heartbeat": {0},
		"InitProducerId": {0, 14}, "JoinGroup": {0, 79},
		// Walked into the first topic's first partition:
		"Produce": {0}, "TxnOffsetCommit": {0}, "AddPartitionsToTxn": {0},
	}
	found := 0
	for _, r := range recordedtest.Load(t) {
		response := append([]byte{}, r.Response...)
		api, _ := Lookup(r.API)
		at, _ := ResponseErrorAt(api, r.Version, response)
		if _, ok := want[r.API]; !ok {
			continue
		}
		if r.API == "FindCoordinator" && r.Version >= 4 {
			if at != -1 {
				t.Errorf("FindCoordinator v%d has no top-level error code, got offset %d", r.Version, at)
			}
			continue
		}
		if at < 0 {
			t.Errorf("%s %s v%d: no error code found", r.Client, r.API, r.Version)
			continue
		}
		if code := int16(response[at])<<8 | int16(response[at+1]); !slices.Contains(want[r.API], code) {
			t.Errorf("%s %s v%d: error code %d at %d, want one of %v", r.Client, r.API, r.Version, code, at, want[r.API])
		}
		SetErrorCode(response, at, 51)
		if again, _ := ResponseErrorAt(api, r.Version, response); again != at || response[at+1] != 51 {
			t.Errorf("%s %s: rewritten code not read back", r.Client, r.API)
		}
		found++
	}
	if found < 14 {
		t.Errorf("only %d responses checked", found)
	}
}

func TestApiVersionsAnswersWithAClassicHeader(t *testing.T) {
	api, _ := Lookup("ApiVersions")
	if !api.ResponseHeaderV0 || !api.Flexible(3) {
		t.Fatal("ApiVersions v3+ is flexible but answers with a v0 header")
	}
}

// A partition leader's verification (AddPartitionsToTxn v4+, broker to broker) names its
// transactional.id inside its transactions array: the table walks into the first element.
func TestBrokerVerificationNamesItsTransaction(t *testing.T) {
	e := recordedtest.Find(t, "broker", "AddPartitionsToTxn", 5)
	h, err := ParseRequestHeader(e.Request)
	if err != nil {
		t.Fatal(err)
	}
	fields := RequestFields(h, e.Request)
	if id, _ := fields["transactional_id"].(string); !strings.HasPrefix(id, "r5-app") {
		t.Fatalf("transactional.id %q, want the R5 app's", id)
	}
	if _, ok := fields["partition"].(int64); !ok || fields["verify_only"] != true {
		t.Fatalf("the first partition it verifies not read: %v", fields)
	}
}
