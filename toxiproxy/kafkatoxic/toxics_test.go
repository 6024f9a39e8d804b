package kafkatoxic

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"

	"kafka-eos-harness/toxiproxy/kafkaproto"
	"kafka-eos-harness/toxiproxy/kafkaproto/recordedtest"
)

// link runs one toxic on one connection's direction, as Toxiproxy does: chunks in, chunks out.
type link struct {
	t    *testing.T
	in   chan *stream.StreamChunk
	out  chan *stream.StreamChunk
	stub *toxics.ToxicStub
}

func run(t *testing.T, toxic toxics.Toxic) *link {
	in, out := make(chan *stream.StreamChunk), make(chan *stream.StreamChunk, 1000)
	l := &link{t, in, out, toxics.NewToxicStub(in, out)}
	if stateful, ok := toxic.(toxics.StatefulToxic); ok {
		l.stub.State = stateful.NewState()
	}
	go l.stub.Run(&toxics.ToxicWrapper{Toxic: toxic, Toxicity: 1})
	return l
}

func (l *link) send(frames ...[]byte) {
	for _, f := range frames {
		l.in <- &stream.StreamChunk{Data: append([]byte{}, f...), Timestamp: time.Now()}
	}
}

// collect gathers what comes out within wait (and whether the output was closed).
func (l *link) collect(wait time.Duration) (data []byte, closed bool) {
	deadline := time.After(wait)
	for {
		select {
		case c, ok := <-l.out:
			if !ok {
				return data, true
			}
			data = append(data, c.Data...)
		case <-deadline:
			return data, false
		}
	}
}

func requestToxic(t *testing.T, attributes string) *RequestToxic {
	t.Helper()
	toxic := new(RequestToxic)
	if err := json.Unmarshal([]byte(attributes), toxic); err != nil {
		t.Fatal(err)
	}
	return toxic
}

func state(t *testing.T, toxic *RequestToxic) (fired, pending int, hits []Hit) {
	t.Helper()
	data, err := json.Marshal(toxic)
	if err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Fired, Pending int
		Hits           []Hit
	}
	if err := json.Unmarshal(data, &shown); err != nil {
		t.Fatal(err)
	}
	return shown.Fired, shown.Pending, shown.Hits
}

var (
	metadata = func(t *testing.T) []byte { return recordedtest.Find(t, "librdkafka", "Metadata", 12).Request }
	endTxn   = func(t *testing.T) recordedtest.Exchange { return recordedtest.Find(t, "librdkafka", "EndTxn", 1) }
	produce  = func(t *testing.T) []byte { return recordedtest.Find(t, "librdkafka", "Produce", 10).Request }
)

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestUnmatchedTrafficPassesUntouched(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "drop"}`)
	l := run(t, toxic)
	stream := cat(metadata(t), produce(t), metadata(t))
	l.send(stream[:10], stream[10:700], stream[700:])
	if got, _ := l.collect(500 * time.Millisecond); !bytes.Equal(got, stream) {
		t.Fatalf("passed %d of %d bytes, or changed them", len(got), len(stream))
	}
	if fired, _, _ := state(t, toxic); fired != 0 {
		t.Fatal("fired on other APIs")
	}
}

// hold: the request and what follows it on the connection wait, then go on in order; other
// bytes before it were not held.
func TestHoldDelaysTheRequestAndWhatFollows(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "hold", "duration_ms": 1000, "times": 1}`)
	l := run(t, toxic)
	before, held, after := metadata(t), endTxn(t).Request, produce(t)
	l.send(before, held, after)
	first, _ := l.collect(400 * time.Millisecond)
	if !bytes.Equal(first, before) {
		t.Fatalf("before the hold ran out: %d bytes, want the %d before the EndTxn", len(first), len(before))
	}
	if _, pending, hits := state(t, toxic); pending != 2 || len(hits) != 1 || hits[0].DeliveredAt != nil {
		t.Fatalf("while held (the hold and its tagged answer to come): pending %d, hits %+v", pending, hits)
	}
	rest, _ := l.collect(1500 * time.Millisecond)
	if !sameButCorrelation(rest, cat(held, after)) {
		t.Fatal("held bytes not released in order")
	}
	_, pending, hits := state(t, toxic)
	if pending != 1 || hits[0].DeliveredAt == nil || *hits[0].ClientClosed {
		t.Fatalf("after release (its answer still to come): pending %d, hit %+v", pending, hits[0])
	}
	if hits[0].API != "EndTxn" || hits[0].TransactionalID == nil || hits[0].Committed == nil {
		t.Fatalf("hit does not say which request: %+v", hits[0])
	}
}

// sameButCorrelation: the bytes are the frames, the first one's correlation id replaced by a token.
func sameButCorrelation(got, want []byte) bool {
	at := kafkaproto.RequestCorrelationAt
	return len(got) == len(want) && bytes.Equal(got[:at], want[:at]) && bytes.Equal(got[at+4:], want[at+4:])
}

// The client gives up and closes the connection: the late copy still reaches the broker, and the
// connection stays open until the broker's answer to it is seen (here: at once, as the broker).
func TestHeldRequestStillArrivesAfterTheClientClosed(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "hold", "duration_ms": 300}`)
	l, answers := run(t, toxic), run(t, new(ResponseToxic))
	l.send(endTxn(t).Request)
	close(l.in)
	got, closed := l.collect(1200 * time.Millisecond)
	if !sameButCorrelation(got, endTxn(t).Request) || closed {
		t.Fatalf("delivered %d bytes, closed %v: want the late copy, the connection open for its answer", len(got), closed)
	}
	answer := append([]byte{}, endTxn(t).Response...)
	kafkaproto.SetCorrelation(answer, kafkaproto.ResponseCorrelationAt, kafkaproto.Correlation(got, kafkaproto.RequestCorrelationAt))
	answers.send(answer)
	if _, closed := l.collect(1000 * time.Millisecond); !closed {
		t.Fatal("not closed once the answer came")
	}
	_, pending, hits := state(t, toxic)
	if pending != 0 || !*hits[0].ClientClosed || hits[0].BrokerErrCode == nil || *hits[0].BrokerErrCode != 0 {
		t.Fatalf("pending %d, hit %+v: want the answer to the late copy recorded", pending, hits[0])
	}
}

func TestDropSwallowsTheRequestAndTheRestOfTheConnection(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "drop"}`)
	l := run(t, toxic)
	l.send(metadata(t), endTxn(t).Request, metadata(t))
	close(l.in)
	got, closed := l.collect(300 * time.Millisecond)
	if !bytes.Equal(got, metadata(t)) || !closed {
		t.Fatalf("passed %d bytes (closed %v), want only the frame before the EndTxn", len(got), closed)
	}
}

// exchangeThrough sends a recorded EndTxn through a request toxic and its answer, as the broker
// echoes the correlation id it got, into a response toxic, with before and after around
// the answer on the same connection; returns the response link.
func exchangeThrough(t *testing.T, toxic *RequestToxic, before, after []byte) (*link, recordedtest.Exchange) {
	requests, responses := run(t, toxic), run(t, new(ResponseToxic))
	exchange := endTxn(t)
	requests.send(exchange.Request)
	sent, _ := requests.collect(500 * time.Millisecond)
	if !bytes.Equal(sent[kafkaproto.RequestCorrelationAt+4:], exchange.Request[kafkaproto.RequestCorrelationAt+4:]) {
		t.Fatal("the request was changed beyond its correlation id")
	}
	token := kafkaproto.Correlation(sent, kafkaproto.RequestCorrelationAt)
	if token >= 0 {
		t.Fatalf("the request kept a client correlation id: %d", token)
	}
	answer := append([]byte{}, exchange.Response...)
	kafkaproto.SetCorrelation(answer, kafkaproto.ResponseCorrelationAt, token)
	responses.send(cat(before, answer, after))
	return responses, exchange
}

// cut_after lets the request through and closes the connection where its answer comes back:
// the broker carried it out, the client never hears. Answers before it still arrive.
func TestCutAfterClosesInPlaceOfTheAnswer(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "cut_after"}`)
	earlier := recordedtest.Find(t, "librdkafka", "Metadata", 12).Response
	responses, _ := exchangeThrough(t, toxic, earlier, earlier)
	got, closed := responses.collect(500 * time.Millisecond)
	if !bytes.Equal(got, earlier) || !closed {
		t.Fatalf("passed %d bytes (closed %v): want only the answer before it, then closed", len(got), closed)
	}
	if _, pending, hits := state(t, toxic); pending != 0 || hits[0].ClosedAt == nil || hits[0].RespondedAt == nil {
		t.Fatalf("pending %d, hit %+v", pending, hits[0])
	}
}

// The request travels with a token; on the way back the response toxic restores the client's
// correlation id and holds the answer.
func TestDelayResponseHoldsTheAnswer(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "delay_response", "duration_ms": 800}`)
	responses, exchange := exchangeThrough(t, toxic, nil, nil)
	if early, _ := responses.collect(300 * time.Millisecond); len(early) != 0 {
		t.Fatal("the answer was not held")
	}
	late, _ := responses.collect(1500 * time.Millisecond)
	if !bytes.Equal(late, exchange.Response) {
		t.Fatal("the answer did not come back with the client's correlation id")
	}
	if _, pending, hits := state(t, toxic); pending != 0 || hits[0].RespondedAt == nil || hits[0].DeliveredAt == nil {
		t.Fatalf("pending %d, hit %+v", pending, hits[0])
	}
}

func TestErrorReplacesTheBrokersCode(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "error", "error_code": 51}`)
	responses, exchange := exchangeThrough(t, toxic, nil, nil)
	got, _ := responses.collect(500 * time.Millisecond)
	api, _ := kafkaproto.Lookup("EndTxn")
	at, _ := kafkaproto.ResponseErrorAt(api, exchange.Version, got)
	if at < 0 || got[at+1] != 51 || kafkaproto.Correlation(got, 4) != kafkaproto.Correlation(exchange.Response, 4) {
		t.Fatal("the answer does not carry the chosen error with the client's correlation id")
	}
	if _, _, hits := state(t, toxic); hits[0].BrokerErrCode == nil || *hits[0].BrokerErrCode != 0 {
		t.Fatalf("the broker's own code is not recorded: %+v", hits[0])
	}
}

// after/times pick which matches fire; a probability draws from the seed, the same way each time.
func TestTriggersCountAndDrawReproducibly(t *testing.T) {
	fired := func(attributes string) []bool {
		toxic := requestToxic(t, attributes)
		var out []bool
		for i := 0; i < 40; i++ {
			out = append(out, toxic.trigger.fire(&toxic.cfg))
		}
		return out
	}
	window := fired(`{"api": "EndTxn", "action": "drop", "after": 3, "times": 2}`)
	for i, f := range window {
		if f != (i == 2 || i == 3) {
			t.Fatalf("after 3, times 2 fired on match %d: %v", i+1, window)
		}
	}
	a := fired(`{"api": "EndTxn", "action": "drop", "times": 0, "probability": 0.5, "seed": 7}`)
	b := fired(`{"api": "EndTxn", "action": "drop", "times": 0, "probability": 0.5, "seed": 7}`)
	c := fired(`{"api": "EndTxn", "action": "drop", "times": 0, "probability": 0.5, "seed": 8}`)
	count := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("the same seed drew differently")
		}
		if a[i] {
			count++
		}
	}
	if count < 10 || count > 30 || slices.Equal(a, c) {
		t.Fatalf("probability 0.5 fired %d of 40 (or another seed drew the same)", count)
	}
}

func TestFiltersOnTheTransactionalID(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "drop", "transactional_id": "another-app"}`)
	l := run(t, toxic)
	l.send(endTxn(t).Request)
	if got, _ := l.collect(500 * time.Millisecond); !bytes.Equal(got, endTxn(t).Request) {
		t.Fatal("an EndTxn of another transactional.id was acted on")
	}
}

func TestWhereFiltersOnALeadingField(t *testing.T) {
	committed := requestToxic(t, `{"api": "EndTxn", "action": "drop", "where": {"committed": false}}`)
	l := run(t, committed)
	l.send(endTxn(t).Request) // a commit: not an abort
	if got, _ := l.collect(500 * time.Millisecond); !bytes.Equal(got, endTxn(t).Request) {
		t.Fatal("a commit matched a filter on aborts")
	}
}

func TestDisarmedToxicOnlyPasses(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "drop"}`)
	if err := json.Unmarshal([]byte(`{"api": "EndTxn", "action": "drop", "disarmed": true}`), toxic); err != nil {
		t.Fatal(err)
	}
	l := run(t, toxic)
	l.send(endTxn(t).Request)
	if got, _ := l.collect(500 * time.Millisecond); !bytes.Equal(got, endTxn(t).Request) {
		t.Fatal("a disarmed toxic acted")
	}
}

// Removing the toxic mid-hold lets what it holds through at once, in order.
func TestRemovalReleasesWhatIsHeld(t *testing.T) {
	toxic := requestToxic(t, `{"api": "EndTxn", "action": "hold", "duration_ms": 60000}`)
	l := run(t, toxic)
	l.send(endTxn(t).Request, metadata(t))
	if got, _ := l.collect(500 * time.Millisecond); len(got) != 0 {
		t.Fatal("not held")
	}
	if !l.stub.InterruptToxic() {
		t.Fatal("could not interrupt")
	}
	toxic.Cleanup(l.stub)
	if got, _ := l.collect(500 * time.Millisecond); !sameButCorrelation(got, cat(endTxn(t).Request, metadata(t))) {
		t.Fatal("removal did not release the held bytes in order")
	}
}

func TestBadAttributesAreRefused(t *testing.T) {
	for _, attributes := range []string{
		`{"api": "NoSuchApi", "action": "drop"}`,
		`{"api": "EndTxn", "action": "explode"}`,
		`{"api": "EndTxn", "action": "hold"}`,
		`{"api": "Produce", "action": "error", "error_code": 1}`,
	} {
		if err := json.Unmarshal([]byte(attributes), new(RequestToxic)); err == nil {
			t.Errorf("accepted %s", attributes)
		}
	}
}
