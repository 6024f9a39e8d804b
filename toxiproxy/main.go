// toxiproxy-kafka is Toxiproxy's server with the harness's Kafka protocol toxics registered
// (kafkatoxic: kafka_request, kafka_response). It takes the same flags and speaks the same
// HTTP API as Toxiproxy's own server, so everything else the harness does is unchanged.
package main

import (
	"flag"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/Shopify/toxiproxy/v2"

	_ "kafka-eos-harness/toxiproxy/kafkatoxic"
)

func main() {
	host := flag.String("host", "localhost", "address the HTTP API listens on")
	port := flag.String("port", "8474", "port the HTTP API listens on")
	flag.Parse()

	logger := zerolog.New(os.Stdout).With().Timestamp().Logger().Level(logLevel())
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), logger)
	go func() {
		if err := server.Listen(net.JoinHostPort(*host, *port)); err != nil {
			logger.Err(err).Msg("API server stopped")
			os.Exit(1)
		}
	}()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	if err := server.Shutdown(); err != nil {
		logger.Err(err).Msg("shutdown")
	}
}

// logLevel is LOG_LEVEL (zerolog's names) or info: every accepted connection is logged, which
// the harness keeps with the run's container logs.
func logLevel() zerolog.Level {
	if level, err := zerolog.ParseLevel(os.Getenv("LOG_LEVEL")); err == nil && level != zerolog.NoLevel {
		return level
	}
	return zerolog.InfoLevel
}
