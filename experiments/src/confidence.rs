//! Confidence intervals and geometric means: what a report says about a
//! figure measured over repetitions.
//!
//! The interval is Student's t: mean ± t(0.975, n-1) · s / √n, with s the
//! sample standard deviation. It assumes the repetitions are independent
//! draws around one mean, which the sweep's randomised, interleaved run
//! order (See Note [Run order] in `experiment`) is there to make closer to
//! true. With 2 repetitions t is 12.7, so the interval is wide: that is
//! the honest answer, not a defect.

/// Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// t(0.975, df): exact to three decimals up to 30 degrees of freedom;
/// above, the value at the bucket's lower end (30, 40, 60, 120), which
/// errs on the wide side.
pub fn t_975(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T_975[df - 1],
        31..=40 => 2.042,
        41..=60 => 2.021,
        61..=120 => 2.000,
        _ => 1.980,
    }
}

/// The mean of `values` and the half-width of its 95% confidence
/// interval (None for fewer than two values).
pub fn mean_ci95(values: &[f64]) -> (f64, Option<f64>) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, None);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, Some(t_975(values.len() - 1) * (var / n).sqrt()))
}

/// The geometric mean of positive `ratios` (None if there are none, or
/// one is not positive).
pub fn geometric_mean(ratios: &[f64]) -> Option<f64> {
    geometric_mean_ci95(ratios).map(|(mean, _)| mean)
}

/// The geometric mean of positive `ratios` with its 95% confidence
/// interval: Student's t on the ratios' logarithms, turned back into
/// ratios (so the interval is not symmetric about the mean). None as for
/// `geometric_mean`; no interval for fewer than two ratios.
pub fn geometric_mean_ci95(ratios: &[f64]) -> Option<(f64, Option<(f64, f64)>)> {
    if ratios.is_empty() || ratios.iter().any(|&r| r <= 0.0 || !r.is_finite()) {
        return None;
    }
    let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
    let (mean, half) = mean_ci95(&logs);
    Some((mean.exp(), half.map(|h| ((mean - h).exp(), (mean + h).exp()))))
}

/// Repetitions needed for the 95% interval's half-width to be at most
/// `fraction` of the mean, for a figure whose coefficient of variation is
/// `cv` (at least 2).
pub fn repetitions_for(cv: f64, fraction: f64) -> usize {
    (2..10_000).find(|&n| t_975(n - 1) * cv / (n as f64).sqrt() <= fraction).unwrap_or(10_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_of_known_samples() {
        let (mean, ci) = mean_ci95(&[10.0, 12.0, 14.0]);
        assert_eq!(mean, 12.0);
        // s = 2, s/sqrt(3) = 1.1547, t(2) = 4.303.
        assert!((ci.unwrap() - 4.303 * 2.0 / 3f64.sqrt()).abs() < 1e-9);
        assert_eq!(mean_ci95(&[5.0]), (5.0, None));
        assert_eq!(mean_ci95(&[3.0, 3.0]).1, Some(0.0));
        assert!(t_975(1000) < t_975(100) && t_975(100) < t_975(30));
        // Logs 0 and ln 4: mean ln 2, s = ln 4 / sqrt 2, half-width
        // 12.706 * s / sqrt 2 = 12.706 * ln 2.
        let (g, ci) = geometric_mean_ci95(&[1.0, 4.0]).unwrap();
        let (lo, hi) = ci.unwrap();
        assert!((g - 2.0).abs() < 1e-12 && (lo * hi - 4.0).abs() < 1e-9, "{g} {lo} {hi}");
        assert!((hi - 2.0 * 2f64.powf(12.706)).abs() / hi < 1e-9);
        assert_eq!(geometric_mean_ci95(&[1.5]), Some((1.5, None)));
        assert_eq!(geometric_mean_ci95(&[1.0, 0.0]), None);
    }

    #[test]
    fn geometric_means_and_repetitions() {
        assert!((geometric_mean(&[2.0, 0.5]).unwrap() - 1.0).abs() < 1e-12);
        assert!((geometric_mean(&[1.0, 8.0]).unwrap() - 8f64.sqrt()).abs() < 1e-12);
        assert_eq!(geometric_mean(&[]), None);
        assert_eq!(geometric_mean(&[1.0, 0.0]), None);
        // A 5% spread needs t(n-1)/sqrt(n) <= 1: n = 7 (2.447/2.646 = 0.925; at 6, 1.05).
        assert_eq!(repetitions_for(0.05, 0.05), 7);
        assert_eq!(repetitions_for(0.01, 0.05), 3);
    }
}
