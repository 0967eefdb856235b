/** Entry of the phone authenticator (`mobile.html`, served at `/m/`). */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MobileApp } from './MobileApp';
import '../styles.css';
import './mobile.css';

createRoot(document.getElementById('root')!).render(<StrictMode><MobileApp /></StrictMode>);
