/**
 * A QR code of `text` (the pairing's enrollment URL), drawn locally by the `qrcode` package into a
 * data: URL (allowed by the CSP's `img-src data:`; nothing leaves the machine). Error correction L:
 * the URL carries a long signed token and a screen is a clean surface, so the code stays coarse
 * enough to scan. The text also sits in `data-enrollment-url` so tests and assistive tools can read
 * what the code holds.
 */
import { useEffect, useState } from 'react';
import { toDataURL } from 'qrcode';

export function QrCode({ text, size = 280, label }: { text: string; size?: number; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    toDataURL(text, { errorCorrectionLevel: 'L', margin: 2, width: size }).then(
      (url) => { if (live) { setSrc(url); setFailed(false); } },
      () => { if (live) setFailed(true); },
    );
    return () => { live = false; };
  }, [text, size]);
  return (
    <div className="qr" data-testid="pairing-qr" data-enrollment-url={text}>
      {src ? <img src={src} width={size} height={size} alt={label} /> : <div className="qr-blank" style={{ width: size, height: size }} aria-busy={!failed}>{failed ? 'The QR code could not be drawn.' : ''}</div>}
    </div>
  );
}
