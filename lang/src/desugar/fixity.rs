//! Fixity resolution: a flat chain of operands and operators to a tree,
//! by Haskell 2010's precedences and associativities (infixl 9 for an
//! operator without a declaration).

use crate::syntax::ast::Assoc;
use std::collections::HashMap;

/// Every declared operator's fixity, the library's and the program's.
#[derive(Default, Clone)]
pub struct Fixities {
    table: HashMap<String, (Assoc, u8)>,
}

impl Fixities {
    pub fn declare(&mut self, op: &str, assoc: Assoc, prec: u8) {
        self.table.insert(op.to_string(), (assoc, prec));
    }

    pub fn of(&self, op: &str) -> (Assoc, u8) {
        let bare = op.rsplit('.').next().filter(|s| !s.is_empty()).unwrap_or(op);
        self.table.get(op).or_else(|| self.table.get(bare)).copied().unwrap_or((Assoc::Left, 9))
    }

    /// Resolve `operands[0] ops[0] operands[1] ...` into a tree, where
    /// `node(op, line, l, r)` builds one application. An error names the
    /// two operators that cannot be mixed.
    pub fn resolve<T>(&self, operands: Vec<T>, ops: &[(String, u32)], node: &mut dyn FnMut(&str, u32, T, T) -> T) -> Result<T, (String, u32)> {
        // Shunting-yard over (assoc, prec).
        let mut out: Vec<T> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut operands = operands.into_iter();
        out.push(operands.next().expect("an infix chain has an operand"));
        for (i, (op, line)) in ops.iter().enumerate() {
            let (assoc, prec) = self.of(op);
            while let Some(&top) = stack.last() {
                let (tassoc, tprec) = self.of(&ops[top].0);
                let pops = tprec > prec || (tprec == prec && assoc == Assoc::Left && tassoc == Assoc::Left);
                if tprec == prec && (assoc != tassoc || assoc == Assoc::None) {
                    return Err((format!("cannot mix `{}' and `{}' in the same infix expression", ops[top].0, op), *line));
                }
                if !pops {
                    break;
                }
                stack.pop();
                let r = out.pop().unwrap();
                let l = out.pop().unwrap();
                out.push(node(&ops[top].0, ops[top].1, l, r));
            }
            stack.push(i);
            out.push(operands.next().expect("one operand more than operators"));
        }
        while let Some(top) = stack.pop() {
            let r = out.pop().unwrap();
            let l = out.pop().unwrap();
            out.push(node(&ops[top].0, ops[top].1, l, r));
        }
        Ok(out.pop().unwrap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(f: &Fixities, src: &[&str]) -> String {
        let operands: Vec<String> = src.iter().step_by(2).map(|s| s.to_string()).collect();
        let ops: Vec<(String, u32)> = src.iter().skip(1).step_by(2).map(|s| (s.to_string(), 1)).collect();
        f.resolve(operands, &ops, &mut |op, _, l, r| format!("({l} {op} {r})")).unwrap()
    }

    #[test]
    fn precedence_and_associativity() {
        let mut f = Fixities::default();
        f.declare("+", Assoc::Left, 6);
        f.declare("*", Assoc::Left, 7);
        f.declare(":", Assoc::Right, 5);
        f.declare("==", Assoc::None, 4);
        assert_eq!(show(&f, &["a", "+", "b", "*", "c", "+", "d"]), "((a + (b * c)) + d)");
        assert_eq!(show(&f, &["a", ":", "b", ":", "c"]), "(a : (b : c))");
        assert_eq!(show(&f, &["a", "+", "b", "==", "c"]), "((a + b) == c)");
        let ops = vec![("==".to_string(), 1), ("==".to_string(), 2)];
        assert!(f.resolve(vec![1, 2, 3], &ops, &mut |_, _, l, _| l).is_err());
    }
}
