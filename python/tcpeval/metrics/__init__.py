"""Metrics and analysis of simulation output, on plain numpy arrays.

Each module covers one family of metrics (throughput, loss, queue, fairness,
stability, convergence, saturation, spectra, Reno mode, flow completion times,
replication statistics); :mod:`tcpeval.metrics.runview` adapts a run result's
DataFrames to them (the one module that reads a run's tables), and
:mod:`tcpeval.metrics.named` holds the per-run metrics a study file names. Times are in seconds, rates in bit/s, windows in packets.
"""

from .convergence import convergence_time
from .fairness import (
    bandwidth_shares,
    fair_to_reno,
    intra_group_fairness,
    jain_index,
    min_max_ratio,
    rtt_fairness,
    tcp_friendliness,
    throughput_ratio,
)
from .fct import FctBuckets, fct_by_size, flow_completion_times
from .loss import (
    drop_probability,
    loss_ratio,
    ratio_in_window,
    retransmission_probability,
)
from .queue import QueueStats, queue_stats, queueing_delay, queueing_delay_packets
from .reno_mode import reno_mode_fraction
from .runview import (
    RunView,
    flow_rows,
    flow_series_of,
    flow_start,
    link_named,
    link_queue_series,
    run_drop_probability,
    run_flow_goodputs,
    run_flow_jain,
    run_flow_trace,
    run_link_utilization,
    run_queue_stats,
    run_queue_trace,
    run_window,
    select_flows,
)
from .saturation import (
    additive_increase_time,
    cwnd_equilibrium,
    delay_saturation_time,
    limited_slow_start_time,
    multiplicative_increase_time,
    slow_start_time,
    time_to_buffer_full,
    time_to_first_drop,
)
from .spectra import (
    cycle_period_from_events,
    cycle_period_from_spectrum,
    dominant_frequencies,
    periodogram_psd,
    sawtooth_peak_times,
    welch_psd,
)
from .stability import coefficient_of_variation, throughput_cov
from .stats import MeanCI, mean_ci, nan_mean_ci
from .throughput import (
    goodput,
    link_utilization,
    phase_throughput,
    sliding_throughput,
    throughput,
    throughput_series,
    utilization,
)

__all__ = [
    "FctBuckets",
    "MeanCI",
    "QueueStats",
    "RunView",
    "additive_increase_time",
    "bandwidth_shares",
    "coefficient_of_variation",
    "convergence_time",
    "cwnd_equilibrium",
    "cycle_period_from_events",
    "cycle_period_from_spectrum",
    "delay_saturation_time",
    "dominant_frequencies",
    "drop_probability",
    "fair_to_reno",
    "fct_by_size",
    "flow_completion_times",
    "flow_rows",
    "flow_series_of",
    "flow_start",
    "goodput",
    "intra_group_fairness",
    "jain_index",
    "limited_slow_start_time",
    "link_named",
    "link_queue_series",
    "link_utilization",
    "loss_ratio",
    "mean_ci",
    "min_max_ratio",
    "multiplicative_increase_time",
    "nan_mean_ci",
    "periodogram_psd",
    "phase_throughput",
    "queue_stats",
    "queueing_delay",
    "queueing_delay_packets",
    "ratio_in_window",
    "reno_mode_fraction",
    "retransmission_probability",
    "rtt_fairness",
    "run_drop_probability",
    "run_flow_goodputs",
    "run_flow_jain",
    "run_flow_trace",
    "run_link_utilization",
    "run_queue_stats",
    "run_queue_trace",
    "run_window",
    "sawtooth_peak_times",
    "select_flows",
    "sliding_throughput",
    "slow_start_time",
    "tcp_friendliness",
    "throughput",
    "throughput_cov",
    "throughput_ratio",
    "throughput_series",
    "time_to_buffer_full",
    "time_to_first_drop",
    "utilization",
    "welch_psd",
]
