//! Whether a `range` bound is one the argument's type can hold: a
//! negative bound on an unsigned type, a fraction on an integer type or a
//! bound beyond the type's range would build a schema that tells agents a
//! value is allowed the argument can never take (or the reverse).
//!
//! Read from the type as spelled: one of Rust's number types, or an
//! `Option` of one. A type behind an alias or a wrapper is not checked
//! here; its bounds still go into the schema and the runtime's check.

/// What a number type holds.
#[derive(Clone, Copy)]
enum Holds {
    /// An integer type, with its least and greatest value.
    Whole(i128, u128),
    /// A float type, with its greatest magnitude.
    Fraction(f64),
}

/// The number type `ty` names (through one `Option`), and what it holds.
fn number_type(ty: &syn::Type) -> Option<(String, Holds)> {
    let syn::Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if last.ident == "Option" {
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
        return match args.args.first()? {
            syn::GenericArgument::Type(inner) if args.args.len() == 1 => number_type(inner),
            _ => None,
        };
    }
    if !last.arguments.is_empty() {
        return None;
    }
    let name = last.ident.to_string();
    let holds = match name.as_str() {
        "u8" => Holds::Whole(0, u8::MAX.into()),
        "u16" => Holds::Whole(0, u16::MAX.into()),
        "u32" => Holds::Whole(0, u32::MAX.into()),
        "u64" => Holds::Whole(0, u64::MAX.into()),
        "u128" => Holds::Whole(0, u128::MAX),
        // The compiler's target decides; 64 bits is the widest it can be.
        "usize" => Holds::Whole(0, u64::MAX.into()),
        "i8" => Holds::Whole(i8::MIN.into(), i8::MAX as u128),
        "i16" => Holds::Whole(i16::MIN.into(), i16::MAX as u128),
        "i32" => Holds::Whole(i32::MIN.into(), i32::MAX as u128),
        "i64" | "isize" => Holds::Whole(i64::MIN.into(), i64::MAX as u128),
        "i128" => Holds::Whole(i128::MIN, i128::MAX as u128),
        "f32" => Holds::Fraction(f32::MAX.into()),
        "f64" => Holds::Fraction(f64::MAX),
        _ => return None,
    };
    Some((name, holds))
}

/// The bound's literal as written, without its sign, and whether it is
/// negative.
fn literal(bound: &syn::Expr) -> Option<(&syn::Lit, bool)> {
    let (negative, expr) = match bound {
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => (true, &**expr),
        other => (false, other),
    };
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => Some((lit, negative)),
        _ => None,
    }
}

/// Refuses a bound (`which` is `min` or `max`, of value `value`) that the
/// argument's type `ty` cannot hold.
pub fn fits(ty: &syn::Type, which: &str, bound: &syn::Expr, value: f64) -> darling::Result<()> {
    let Some((name, holds)) = number_type(ty) else { return Ok(()) };
    let written = quote::ToTokens::to_token_stream(bound).to_string().replace(' ', "");
    let problem = match holds {
        Holds::Whole(least, _) if value < 0.0 && least == 0 => Some(if which == "min" {
            format!(
                "`{name}` cannot be negative, so `min = {written}` tells agents of values the argument can never take: leave `min` out (a `{name}` is at least 0) or write `min = 0`, or take the argument as a signed type such as `i64`"
            )
        } else {
            format!(
                "`{name}` cannot be negative, so `max = {written}` admits no value: give a bound of 0 or more, or take the argument as a signed type such as `i64`"
            )
        }),
        Holds::Whole(..) if value.fract() != 0.0 => {
            let whole = if which == "min" { value.ceil() } else { value.floor() };
            Some(format!(
                "`{name}` is a whole number, so a bound of {written} cannot be met exactly: write `{which} = {whole}`, or take the argument as `f64` to accept fractions"
            ))
        }
        Holds::Whole(least, greatest) if !within(bound, least, greatest) => Some(format!(
            "{written} is beyond what a `{name}` can hold ({least} to {greatest}): give a bound inside that range, or leave `{which}` out, or take the argument as a wider type"
        )),
        Holds::Fraction(greatest) if value.abs() > greatest || !value.is_finite() => Some(format!(
            "{written} is beyond what a `{name}` can hold: give a smaller bound, or leave `{which}` out"
        )),
        _ => None,
    };
    // At the number's digits: a span cannot cover the `-` and the digits
    // together on a stable compiler.
    let at =
        literal(bound).map_or_else(|| syn::spanned::Spanned::span(bound), |(lit, _)| lit.span());
    match problem {
        Some(problem) => Err(darling::Error::custom(problem).with_span(&at)),
        None => Ok(()),
    }
}

/// Whether an integer bound lies in `least..=greatest`, read from its
/// digits (an `f64` cannot tell `u64::MAX` from one more).
fn within(bound: &syn::Expr, least: i128, greatest: u128) -> bool {
    let Some((syn::Lit::Int(int), negative)) = literal(bound) else {
        // A float literal with a whole value, such as `5.0`: near enough.
        return true;
    };
    match int.base10_parse::<u128>() {
        Ok(magnitude) if negative => {
            i128::try_from(magnitude).is_ok_and(|m| -m >= least)
                || (magnitude == least.unsigned_abs() && least < 0)
        }
        Ok(magnitude) => magnitude <= greatest,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::fits;

    fn check(ty: &str, which: &str, bound: &str) -> Result<(), String> {
        let ty: syn::Type = syn::parse_str(ty).unwrap();
        let expr: syn::Expr = syn::parse_str(bound).unwrap();
        let value: f64 = bound.replace('_', "").parse().unwrap();
        fits(&ty, which, &expr, value).map_err(|e| e.to_string())
    }

    #[test]
    fn bounds_the_type_can_hold_pass() {
        assert!(check("u32", "max", "4294967295").is_ok());
        assert!(check("Option<i8>", "min", "-128").is_ok());
        assert!(check("i128", "min", "-170141183460469231731687303715884105728").is_ok());
        assert!(check("f32", "min", "-0.5").is_ok());
        assert!(check("u8", "min", "1.0").is_ok());
        assert!(check("Cents", "min", "-5").is_ok(), "an alias is not read");
    }

    #[test]
    fn bounds_the_type_cannot_hold_are_refused() {
        assert!(check("u32", "min", "-5").unwrap_err().contains("cannot be negative"));
        assert!(check("Option<usize>", "min", "0.5").unwrap_err().contains("`min = 1`"));
        assert!(check("i64", "max", "2.5").unwrap_err().contains("`max = 2`"));
        assert!(check("u32", "max", "99999999999").unwrap_err().contains("0 to 4294967295"));
        assert!(check("i8", "min", "-129").unwrap_err().contains("-128 to 127"));
    }
}
