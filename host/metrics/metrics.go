package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/spec"
)

// PoolStat is one plugin's instance pool, as read at scrape time.
type PoolStat struct {
	Plugin    string
	Size      int // instances the pool holds
	Idle      int // waiting for a call
	Created   int64
	Discarded int64
}

// Metrics holds Airlock's metrics in its own registry (no global state).
type Metrics struct {
	reg          *prometheus.Registry
	invocations  *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	chains       *prometheus.CounterVec
	chainLatency *prometheus.HistogramVec
	reloads      *prometheus.CounterVec
}

// New returns metrics registered in a fresh registry, with the Go runtime's
// and the process's own metrics beside them. pools, if set, is called at
// every scrape to report the instance pools.
func New(pools func() []PoolStat) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	buckets := []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
	m.invocations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "airlock_invocations_total",
		Help: "Interceptor invocations by outcome: ok, blocked (a blocking validation verdict), failed, timeout.",
	}, []string{"interceptor", "type", "phase", "outcome"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "airlock_invocation_seconds", Help: "Interceptor invocation latency.", Buckets: buckets,
	}, []string{"interceptor", "phase"})
	m.chains = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "airlock_chains_total",
		Help: "Chain runs by status: success, validation_failed, mutation_failed, timeout.",
	}, []string{"event", "phase", "status"})
	m.chainLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "airlock_chain_seconds", Help: "Whole-chain latency.", Buckets: buckets,
	}, []string{"phase"})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "airlock_reloads_total", Help: "Hot-swap reloads by result: ok or failed.",
	}, []string{"result"})
	m.reg.MustRegister(m.invocations, m.latency, m.chains, m.chainLatency, m.reloads,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if pools != nil {
		m.reg.MustRegister(&poolCollector{pools: pools})
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry the metrics live in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Invocation implements chain.Observer.
func (m *Metrics) Invocation(interceptor string, typ spec.Type, phase spec.Phase, took time.Duration, outcome chain.Outcome) {
	m.invocations.WithLabelValues(interceptor, string(typ), string(phase), outcome.String()).Inc()
	m.latency.WithLabelValues(interceptor, string(phase)).Observe(took.Seconds())
}

// ChainDone implements chain.Observer.
func (m *Metrics) ChainDone(event string, phase spec.Phase, status spec.ChainStatus, took time.Duration) {
	m.chains.WithLabelValues(eventLabel(event), string(phase), string(status)).Inc()
	m.chainLatency.WithLabelValues(string(phase)).Observe(took.Seconds())
}

// Reload counts a reload attempt.
func (m *Metrics) Reload(err error) {
	if err != nil {
		m.reloads.WithLabelValues("failed").Inc()
		return
	}
	m.reloads.WithLabelValues("ok").Inc()
}

// eventLabel keeps the label set bounded: events come from peers, and any
// custom name would otherwise become a new time series.
func eventLabel(event string) string {
	for _, e := range spec.KnownEvents {
		if e == event {
			return event
		}
	}
	return "custom"
}

type poolCollector struct{ pools func() []PoolStat }

var (
	poolInstances = prometheus.NewDesc("airlock_pool_instances", "Instances in a plugin's pool, by state (idle, busy).", []string{"plugin", "state"}, nil)
	poolCreated   = prometheus.NewDesc("airlock_pool_instances_created_total", "Instances a plugin's pool has created.", []string{"plugin"}, nil)
	poolDiscarded = prometheus.NewDesc("airlock_pool_instances_discarded_total", "Instances discarded after a failure (trap, timeout, memory).", []string{"plugin"}, nil)
)

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolInstances
	ch <- poolCreated
	ch <- poolDiscarded
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.pools() {
		ch <- prometheus.MustNewConstMetric(poolInstances, prometheus.GaugeValue, float64(p.Idle), p.Plugin, "idle")
		ch <- prometheus.MustNewConstMetric(poolInstances, prometheus.GaugeValue, float64(p.Size-p.Idle), p.Plugin, "busy")
		ch <- prometheus.MustNewConstMetric(poolCreated, prometheus.CounterValue, float64(p.Created), p.Plugin)
		ch <- prometheus.MustNewConstMetric(poolDiscarded, prometheus.CounterValue, float64(p.Discarded), p.Plugin)
	}
}
