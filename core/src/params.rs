//! Parameters of a plug-in (`--collector NAME:key=value,key=value`,
//! `--heap-policy NAME:key=value`): the one parser both registries use.
//! A plug-in reads the keys it knows with `take` and refuses the rest
//! with `finish`, so a typo is an error, never ignored.

/// Parsed `key=value,key=value` words, for one kind of plug-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    /// What the parameters belong to, for messages: "collector" or
    /// "heap policy".
    kind: &'static str,
    pairs: Vec<(String, String)>,
}

impl Default for Params {
    fn default() -> Params {
        Params { kind: "collector", pairs: Vec::new() }
    }
}

impl Params {
    /// Parse a collector's `key=value,key=value` (empty: none).
    pub fn parse(text: &str) -> Result<Params, String> {
        Params::parse_for("collector", text)
    }

    /// Parse the parameters of a plug-in of kind `kind` (for messages).
    /// A key given twice is refused: which one was meant cannot be known.
    pub fn parse_for(kind: &'static str, text: &str) -> Result<Params, String> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for item in text.split(',').filter(|s| !s.is_empty()) {
            let Some((k, v)) = item.split_once('=') else {
                return Err(format!("{kind} parameter `{item}' is not key=value"));
            };
            let (k, v) = (k.trim().to_string(), v.trim().to_string());
            if let Some((_, first)) = pairs.iter().find(|(key, _)| *key == k) {
                return Err(format!("{kind} parameter `{k}' is given twice ({k}={first} and {k}={v})"));
            }
            pairs.push((k, v));
        }
        Ok(Params { kind, pairs })
    }

    /// The parameters in one spelling, keys in order and numbers without
    /// leading zeros (`line=0064,defrag=never` and `defrag=never,line=64`
    /// are one configuration).
    pub fn canonical(&self) -> String {
        let mut pairs: Vec<(String, String)> = self.pairs.iter().map(|(k, v)| (k.clone(), v.parse::<u64>().map_or_else(|_| v.clone(), |n| n.to_string()))).collect();
        pairs.sort();
        pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
    }

    /// Take the value of `key`, if given.
    pub fn take(&mut self, key: &str) -> Option<String> {
        let i = self.pairs.iter().position(|(k, _)| k == key)?;
        Some(self.pairs.remove(i).1)
    }

    /// Take `key` as a number in `range`, or `default` when not given.
    pub fn take_number(&mut self, name: &str, key: &str, default: f64, range: std::ops::RangeInclusive<f64>) -> Result<f64, String> {
        let Some(text) = self.take(key) else { return Ok(default) };
        match text.parse::<f64>() {
            Ok(v) if range.contains(&v) => Ok(v),
            _ => Err(format!("the {name} {}'s parameter {key}={text}: expected a number from {} to {}", self.kind, range.start(), range.end())),
        }
    }

    /// Take `key` as a whole percentage in `range` (`of` what, for the
    /// message that refuses anything else: empty, or " of ..."), or
    /// `default` when not given.
    pub fn take_percent(&mut self, key: &str, of: &str, range: std::ops::RangeInclusive<usize>, default: usize) -> Result<usize, String> {
        let Some(text) = self.take(key) else { return Ok(default) };
        match text.parse::<usize>() {
            Ok(p) if range.contains(&p) => Ok(p),
            _ => Err(format!("{key} must be a percentage{of} from {} to {}, not `{text}'", range.start(), range.end())),
        }
    }

    /// Take `key` as a switch, `0` or `1` (`meaning0` and `meaning1` say
    /// what each means, for the message that refuses anything else), or
    /// `default` when not given.
    pub fn take_switch(&mut self, key: &str, default: bool, meaning0: &str, meaning1: &str) -> Result<bool, String> {
        match self.take(key).as_deref() {
            None => Ok(default),
            Some("1") => Ok(true),
            Some("0") => Ok(false),
            Some(v) => Err(format!("{key} must be 0 ({meaning0}) or 1 ({meaning1}), not `{v}'")),
        }
    }

    /// Refuse whatever was not taken, naming the keys `known`; `name` is
    /// the plug-in's.
    pub fn finish(self, name: &str, known: &[&str]) -> Result<(), String> {
        match self.pairs.first() {
            None => Ok(()),
            Some((k, _)) if known.is_empty() => Err(format!("the {name} {} takes no parameters (got `{k}')", self.kind)),
            Some((k, _)) => Err(format!("the {name} {} has no parameter `{k}' (known: {})", self.kind, known.join(", "))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_taken_and_the_rest_refused_by_name() {
        let mut p = Params::parse("a=1, b=two").unwrap();
        assert_eq!(p.take("b").as_deref(), Some("two"));
        assert!(p.finish("t", &["b"]).unwrap_err().contains("the t collector has no parameter `a'"));
        assert!(Params::parse("a=1,a=2").unwrap_err().contains("given twice"));
        let mut p = Params::parse_for("heap policy", "c=x").unwrap();
        assert!(p.take_number("membalancer", "c", 1.0, 0.0..=10.0).unwrap_err().contains("membalancer heap policy's parameter c=x"));
        assert!(Params::parse_for("heap policy", "c").unwrap_err().contains("heap policy parameter `c'"));
    }

    #[test]
    fn a_switch_is_0_or_1_or_its_default() {
        let mut p = Params::parse("on=1,off=0,bad=yes").unwrap();
        assert!(p.take_switch("on", false, "no", "yes").unwrap());
        assert!(!p.take_switch("off", true, "no", "yes").unwrap());
        assert!(p.take_switch("absent", true, "no", "yes").unwrap());
        let e = p.take_switch("bad", true, "the zero case", "the one case").unwrap_err();
        assert_eq!(e, "bad must be 0 (the zero case) or 1 (the one case), not `yes'");
    }

    #[test]
    fn a_percentage_is_a_whole_number_in_its_range_or_its_default() {
        let mut p = Params::parse("a=0,b=49,c=50,d=-1,e=5.5,f=x").unwrap();
        assert_eq!(p.take_percent("a", "", 0..=49, 7), Ok(0));
        assert_eq!(p.take_percent("b", "", 0..=49, 7), Ok(49));
        assert_eq!(p.take_percent("absent", "", 0..=49, 7), Ok(7));
        assert_eq!(p.take_percent("c", " of a block", 0..=49, 7), Err("c must be a percentage of a block from 0 to 49, not `50'".to_string()));
        for bad in ["d", "e", "f"] {
            assert!(p.take_percent(bad, "", 1..=100, 7).unwrap_err().starts_with(&format!("{bad} must be a percentage from 1 to 100, not `")), "{bad}");
        }
    }
}
