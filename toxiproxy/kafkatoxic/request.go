package kafkatoxic

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"

	"kafka-eos-harness/toxiproxy/kafkaproto"
)

// Actions of a kafka_request toxic.
const (
	Hold          = "hold"           // keep the request (and what follows it) from the broker for duration_ms
	Drop          = "drop"           // swallow it and everything after it on that connection
	CutAfter      = "cut_after"      // let it through; close the connection when its answer comes, instead of it
	DelayResponse = "delay_response" // let it through; its answer reaches the client duration_ms late
	Error         = "error"          // let it through; its answer carries error_code instead of the broker's
)

// requestConfig is the toxic's attributes as the API sets them.
type requestConfig struct {
	API             string  `json:"api"` // Kafka's name, e.g. "EndTxn"
	Action          string  `json:"action"`
	DurationMs      int64   `json:"duration_ms"`
	ErrorCode       int16   `json:"error_code"`
	After           int     `json:"after"`       // act from the after-th matching request on (1: the first)
	Times           int     `json:"times"`       // on at most this many (0: every one)
	Probability     float64 `json:"probability"` // each with this chance (0 or 1: always)
	Seed            int64   `json:"seed"`
	TransactionalID string  `json:"transactional_id"` // only requests naming it (empty: any)
	GroupID         string  `json:"group_id"`
	ClientID        string  `json:"client_id"`
	// Only requests whose leading fields (apis.json) have these values, e.g. {"partition": 1}.
	Where    map[string]any `json:"where,omitempty"`
	Disarmed bool           `json:"disarmed"` // set to stop acting; what is held still goes on time
}

func (c *requestConfig) check() (*kafkaproto.API, error) {
	api, ok := kafkaproto.Lookup(c.API)
	if !ok {
		return nil, fmt.Errorf("unknown Kafka API %q", c.API)
	}
	switch c.Action {
	case Hold, DelayResponse:
		if c.DurationMs <= 0 {
			return nil, fmt.Errorf("%s needs duration_ms > 0", c.Action)
		}
	case Error:
		if !api.HasTopLevelError() {
			return nil, fmt.Errorf("%s responses have no top-level error code to replace", api.Name)
		}
	case Drop, CutAfter:
	default:
		return nil, fmt.Errorf("unknown action %q", c.Action)
	}
	return api, nil
}

// RequestToxic acts on the requests of one Kafka API on the stream towards the broker.
// One instance serves every connection of its proxy; its counters and hits are shared.
type RequestToxic struct {
	mu          sync.Mutex
	cfg         requestConfig
	api         *kafkaproto.API
	trigger     trigger
	hits        []Hit
	outstanding int // holds not yet released and tagged requests not yet answered
	connections atomic.Int64
}

func (t *RequestToxic) UnmarshalJSON(data []byte) error {
	var cfg requestConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return err
	}
	api, err := cfg.check()
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cfg, t.api = cfg, api
	return nil
}

// MarshalJSON shows the attributes, what the toxic matched and fired, what it still holds
// (pending: the harness waits for 0 before removing it) and every hit.
func (t *RequestToxic) MarshalJSON() ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return json.Marshal(struct {
		requestConfig
		Matched int   `json:"matched"`
		Fired   int   `json:"fired"`
		Pending int   `json:"pending"`
		Hits    []Hit `json:"hits"`
	}{t.cfg, t.trigger.matched, t.trigger.fired, t.outstanding, append([]Hit{}, t.hits...)})
}

type requestState struct {
	valve
	connection int64
}

func (t *RequestToxic) NewState() interface{} {
	s := &requestState{connection: t.connections.Add(1)}
	s.frames.Looks = func(head []byte) bool {
		h, err := kafkaproto.ParseRequestHeader(head)
		return err == nil && h.Plausible()
	}
	return s
}

func (t *RequestToxic) Pipe(stub *toxics.ToxicStub) {
	s := stub.State.(*requestState)
	pipe(stub, &s.valve, func(v *valve, piece []byte) { t.decide(s, piece) })
}

func (t *RequestToxic) Cleanup(stub *toxics.ToxicStub) {
	cleanup(stub, &stub.State.(*requestState).valve)
}

// decide acts on a request frame's start if it matches and the trigger fires.
func (t *RequestToxic) decide(s *requestState, piece []byte) {
	h, err := kafkaproto.ParseRequestHeader(piece)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cfg.Disarmed || t.api == nil || h.Key != t.api.Key {
		return
	}
	fields := kafkaproto.RequestFields(h, piece)
	if !matches(t.cfg.TransactionalID, fields, "transactional_id") || !matches(t.cfg.GroupID, fields, "group_id") ||
		(t.cfg.ClientID != "" && t.cfg.ClientID != h.ClientID) || !where(t.cfg.Where, fields) ||
		!t.trigger.fire(&t.cfg) {
		return
	}
	hit := Hit{
		At: unixNow(), Action: t.cfg.Action, API: t.api.Name, Version: h.Version, CorrelationID: h.CorrelationID,
		ClientID: h.ClientID, Connection: s.connection, TransactionalID: stringField(fields, "transactional_id"),
		GroupID: stringField(fields, "group_id"), Committed: boolField(fields, "committed"),
	}
	t.hits = append(t.hits, hit)
	index := len(t.hits) - 1
	if t.cfg.Action == Drop {
		s.dropping = true
		return
	}
	// Every other action tags the request, so its answer is seen on the way back: the answer
	// a fault acts on, or, for a hold, what the broker made of the late copy.
	t.outstanding++
	token := issueToken(answer{correlationID: h.CorrelationID, toxic: t, hit: index, api: t.api, version: h.Version})
	kafkaproto.SetCorrelation(piece, kafkaproto.RequestCorrelationAt, token)
	if t.cfg.Action == Hold {
		t.outstanding++
		held := time.Duration(t.cfg.DurationMs) * time.Millisecond
		s.hold(held, func(clientClosed bool) { t.delivered(index, clientClosed) })
		// A client that gave up has closed its side: the connection stays open for the answer.
		s.awaiting, s.answerBy = cameBack(token), time.Now().Add(held+answerWait)
	}
}

// How long after a late copy went on the connection stays open for the broker's answer to it.
const answerWait = 5 * time.Second

// where says whether every field named has the value given (numbers compared by their text:
// JSON gives float64, the reader int64).
func where(want map[string]any, fields map[string]any) bool {
	for name, value := range want {
		got, ok := fields[name]
		if !ok || fmt.Sprint(got) != fmt.Sprint(value) {
			return false
		}
	}
	return true
}

func matches(want string, fields map[string]any, name string) bool {
	if want == "" {
		return true
	}
	got, ok := fields[name].(string)
	return ok && got == want
}

// responded records the broker's answer to a hit's request, as a kafka_response toxic saw it.
func (t *RequestToxic) responded(hit int, brokerCode *int16) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := unixNow()
	t.hits[hit].RespondedAt, t.hits[hit].BrokerErrCode = &now, brokerCode
	t.outstanding--
}

// holding notes that an answer is being held (delay_response).
func (t *RequestToxic) holding() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.outstanding++
}

// delivered records that what a hit held went on (the request, or the answer to it).
func (t *RequestToxic) delivered(hit int, clientClosed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := unixNow()
	t.hits[hit].DeliveredAt, t.hits[hit].ClientClosed = &now, &clientClosed
	t.outstanding--
}

// closed records that the connection was closed in place of a hit's answer.
func (t *RequestToxic) closed(hit int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := unixNow()
	t.hits[hit].ClosedAt = &now
}

func init() {
	toxics.Register("kafka_request", new(RequestToxic))
}

func (t *RequestToxic) config() requestConfig {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cfg
}
